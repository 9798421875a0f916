#!/usr/bin/env python3
"""Check that no C++ function body is longer than a limit.

Usage:
  python3 tools/function_lengths.py [--max 100] [--list] [--top N] DIR_OR_FILE...
  python3 tools/function_lengths.py --self-test

Scans *.cpp, *.hpp, *.h and *.inl files under each DIR (recursively, in sorted order); a FILE
named on the command line is scanned whatever its extension.

What counts as a function: every definition with a body -- free functions, member functions
defined inside class bodies or out of line, constructors (also with member-initializer lists
`: a_(x), b_{y} {`), destructors, operators (`operator()`, `operator<=>`, conversions), templates,
function-try-blocks (`f() try { ... } catch (...) { ... }`), in named and anonymous namespaces,
`extern "C" { }` blocks and nested classes/structs/unions. Only the outermost bodies are measured:
a lambda or a local class inside a function is part of that function. Namespace, class, struct,
union and enum bodies, brace initializers (`int a[] = {...}`, `Foo f{1, 2};`, default member
initializers `std::vector<int> v{1, 2};`), `extern "C" {` blocks and `requires { }` expressions are
not functions. Declarations without a body (`= default;`, `= delete;`, `= 0;`, prototypes) are not
counted. A lambda that initializes a namespace-scope variable or a data member
(`constexpr auto kTable = [] { ... }();`, `std::function<void()> f_ = [this] { ... };`) is measured
as a function named `kTable (lambda)`, from the line of its `[` (as clang sees its operator()). A
lambda inside parentheses or braces there (`Foo f([] { ... });`) or in a default argument is not
measured on its own.

Length rule: length = (line of the closing brace of the body) - (line of the function's name
token) + 1. The name token is the unqualified name right before the parameter list: `prepare` in
`void StarkProver::prepare(...)`, `~Foo`, `operator()`; for a template-id `f<T>(...)` it is `f`.
Return types, `template <...>` lines and attributes on earlier lines are not counted. (This is the
line of the `loc` that clang's AST dump gives a FunctionDecl, and the closing brace is the line of
its `range.end`.) For a function-try-block the end is the closing brace of the last handler.

How it works: a small lexer drops comments, string/character literals (also raw strings
R"delim(...)delim" and literals with prefixes/ud-suffixes), digit separators (1'000'000) and
preprocessor lines (with backslash continuations; braces inside macros are ignored). For
#if/#ifdef/#elif/#else groups, `#if 0` branches are dropped; if every remaining branch has
balanced brackets all of them are kept, otherwise only the first one is (so `#ifdef X` /
`void f(int a) {` / `#else` / `void f() {` / `#endif` parses as one function). The token stream is
then split into declarations at namespace/class scope; at each `{` the declaration before it
decides what the brace opens.

Limits: macros are not expanded (a macro that expands to braces or to a function head is not
seen; a body written as `TEST(a, b) {` is reported under the macro's name, `TEST`), and an #if
group with unbalanced branches is read through its first branch only.

Names: the (qualified) name as written before the parameter list (`StarkProver::prepare`,
`operator()`, `~Foo`, `Foo<T>::bar`); a function defined inside a class body gets the names of the
enclosing classes in front (`WorkerLoop::run`). Namespaces are not added.

Output: with --list every function, longest first, as `path:line: name N lines` (--top N: only the
N longest). Always: each function over the limit as `path:line: name: N lines (limit M)`, then
`K function(s) over M lines in F files (functions scanned: T)`, where F is the number of files
holding a function over the limit. Exit status: 1 if a function is over the limit, 0 if none,
2 on a usage error (e.g. a path that does not exist).
"""

import argparse
import io
import os
import re
import sys

EXTENSIONS = ('.cpp', '.hpp', '.h', '.inl')

# ---------------------------------------------------------------------------------------------
# Lexer. A token is a tuple (kind, text, line); kinds: 'id' identifier/keyword, 'op' a merged
# operator-function-id (`operator()`), 'num', 'str', 'chr', 'p' punctuator, and the preprocessor
# markers 'ppif' (text: the condition), 'ppelif', 'ppelse', 'ppendif'.

_ID_RE = re.compile(r'(?:[^\W\d]|\$)[\w$]*')  # also UTF-8 identifiers
_NUM_RE = re.compile(r"\.?[0-9](?:[eEpP][+-]|'[0-9A-Za-z_]|[0-9A-Za-z_.])*")
_PUNCTS = ['>>=', '<<=', '<=>', '->*', '...', '::', '->', '++', '--', '<<', '>>', '<=', '>=', '==',
           '!=', '&&', '||', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '.*', '##']
_PUNCT_RE = re.compile('|'.join(re.escape(p) for p in _PUNCTS))
_RAW_PREFIXES = {'R', 'u8R', 'uR', 'UR', 'LR'}
_STR_PREFIXES = {'u8', 'u', 'U', 'L'}
_RAW_DELIM_RE = re.compile(r'[^ ()\\\t\v\f\n]{0,16}\(')


def _skip_quoted(src, i, quote):
    """i is just after an opening quote. Returns (index after the closing quote, newlines seen).
    An unterminated literal ends before the newline."""
    n = len(src)
    nl = 0
    while i < n:
        c = src[i]
        if c == '\\':
            if i + 1 < n and src[i + 1] == '\n':
                nl += 1
            elif i + 2 < n and src[i + 1] == '\r' and src[i + 2] == '\n':
                nl += 1
                i += 1
            i += 2
            continue
        if c == quote:
            return i + 1, nl
        if c == '\n':
            return i, nl
        i += 1
    return n, nl


def _skip_line_comment(src, i):
    """i is at `//`. Returns (index of the newline that ends it, or len, continuation newlines)."""
    n = len(src)
    nl = 0
    while True:
        j = src.find('\n', i)
        if j < 0:
            return n, nl
        k = j - 1
        if k >= 0 and src[k] == '\r':
            k -= 1
        if k >= 0 and src[k] == '\\':  # a backslash-newline continues the comment
            nl += 1
            i = j + 1
            continue
        return j, nl


def _skip_ud_suffix(src, i):
    m = _ID_RE.match(src, i)
    return m.end() if m else i


def lex(src):
    toks = []
    n = len(src)
    i = 0
    line = 1
    at_line_start = True
    while i < n:
        c = src[i]
        if c == '\n':
            line += 1
            i += 1
            at_line_start = True
            continue
        if c in ' \t\r\f\v':
            i += 1
            continue
        if c == '\\':  # a stray line continuation outside a directive
            j = i + 1
            if j < n and src[j] == '\r':
                j += 1
            if j < n and src[j] == '\n':
                i = j + 1
                line += 1
                continue
        if c == '/' and i + 1 < n:
            if src[i + 1] == '/':
                i, nl = _skip_line_comment(src, i)
                line += nl
                continue
            if src[i + 1] == '*':
                j = src.find('*/', i + 2)
                j = n if j < 0 else j + 2
                line += src.count('\n', i, j)
                i = j
                continue
        if c == '#' and at_line_start:
            i, line = _directive(src, i, line, toks)
            continue
        at_line_start = False
        m = _ID_RE.match(src, i) if (c.isalpha() or c == '_' or c == '$') else None
        if m:
            word = m.group()
            j = m.end()
            if j < n and src[j] == '"' and word in _RAW_PREFIXES:
                d = _RAW_DELIM_RE.match(src, j + 1)
                if d:
                    delim = src[j + 1:d.end() - 1]
                    end = src.find(')' + delim + '"', d.end())
                    end = n if end < 0 else end + len(delim) + 2
                    end = _skip_ud_suffix(src, end)
                    toks.append(('str', 'R""', line))
                    line += src.count('\n', i, end)
                    i = end
                    continue
            if j < n and src[j] in '"\'' and (word in _STR_PREFIXES or word in _RAW_PREFIXES):
                end, nl = _skip_quoted(src, j + 1, src[j])
                end = _skip_ud_suffix(src, end)
                toks.append(('str' if src[j] == '"' else 'chr', src[j] * 2, line))
                line += nl
                i = end
                continue
            toks.append(('id', word, line))
            i = j
            continue
        m = _NUM_RE.match(src, i) if (c.isdigit() or c == '.') else None
        if m:
            toks.append(('num', m.group(), line))
            i = m.end()
            continue
        if c == '"' or c == "'":
            end, nl = _skip_quoted(src, i + 1, c)
            if c == '"':
                text = src[i:end] if end - i <= 2 else '""'
                end = _skip_ud_suffix(src, end)
                if text == '""' and end > i + 2:  # keep `""_x` whole for operator""_x
                    text = src[i:end]
                toks.append(('str', text, line))
            else:
                toks.append(('chr', "''", line))
            line += nl
            i = end
            continue
        m = _PUNCT_RE.match(src, i)
        if m:
            toks.append(('p', m.group(), line))
            i = m.end()
            continue
        toks.append(('p', c, line))
        i += 1
    return toks


def _directive(src, i, line, toks):
    """i is at the `#` starting a directive. Reads the logical line (continuations, comments and
    quotes handled), adds a marker token for conditionals. Returns (index of the ending newline,
    line number there)."""
    n = len(src)
    start_line = line
    text = []
    j = i + 1
    while j < n:
        c = src[j]
        if c == '\n':
            k = j - 1
            if k > i and src[k] == '\r':
                k -= 1
            if k > i and src[k] == '\\':
                line += 1
                j += 1
                if text and text[-1] == '\\':
                    text.pop()
                text.append(' ')
                continue
            break
        if c == '/' and j + 1 < n and src[j + 1] == '*':
            e = src.find('*/', j + 2)
            e = n if e < 0 else e + 2
            line += src.count('\n', j, e)
            j = e
            text.append(' ')
            continue
        if c == '/' and j + 1 < n and src[j + 1] == '/':
            e, nl = _skip_line_comment(src, j)
            line += nl
            j = e
            break
        if c == '"' or c == "'":
            e, nl = _skip_quoted(src, j + 1, c)
            text.append(src[j:e])
            line += nl
            j = e
            continue
        text.append(c)
        j += 1
    body = ''.join(text).strip()
    m = re.match(r'(\w+)\s*(.*)', body, re.S)
    if m:
        name, rest = m.group(1), m.group(2).strip()
        if name == 'if':
            toks.append(('ppif', rest, start_line))
        elif name in ('ifdef', 'ifndef'):
            toks.append(('ppif', name + ' ' + rest, start_line))
        elif name == 'elif':
            toks.append(('ppelif', rest, start_line))
        elif name in ('elifdef', 'elifndef'):
            toks.append(('ppelif', name + ' ' + rest, start_line))
        elif name == 'else':
            toks.append(('ppelse', 'else', start_line))
        elif name == 'endif':
            toks.append(('ppendif', '', start_line))
    return j, line


_OPENERS = {'(': ')', '[': ']', '{': '}'}
_CLOSERS = {')': '(', ']': '[', '}': '{'}


def _bracket_delta_zero(toks):
    count = {'(': 0, '[': 0, '{': 0}
    for kind, text, _ in toks:
        if kind == 'p':
            if text in _OPENERS:
                count[text] += 1
            elif text in _CLOSERS:
                count[_CLOSERS[text]] -= 1
    return all(v == 0 for v in count.values())


def _is_zero_condition(cond):
    return cond.strip() in ('0', '(0)', 'false')


def resolve_conditionals(toks):
    """Replaces each #if group by the tokens of the branches kept (see the header comment)."""
    pos = 0
    n = len(toks)

    def choose(branches):
        live = [b for c, b in branches if not _is_zero_condition(c)]
        if not live:
            return []
        if all(_bracket_delta_zero(b) for b in live):
            return [t for b in live for t in b]
        return live[0]

    def seq():
        nonlocal pos
        out = []
        while pos < n:
            t = toks[pos]
            k = t[0]
            if k in ('ppelif', 'ppelse', 'ppendif'):
                return out
            if k == 'ppif':
                pos += 1
                branches = []
                cond = t[1]
                while True:
                    body = seq()
                    branches.append((cond, body))
                    if pos >= n:
                        break
                    e = toks[pos]
                    pos += 1
                    if e[0] == 'ppendif':
                        break
                    cond = e[1]
                out.extend(choose(branches))
                continue
            out.append(t)
            pos += 1
        return out

    result = []
    while True:
        result.extend(seq())
        if pos >= n:
            break
        pos += 1  # a stray #elif/#else/#endif
    return result


def merge_operators(toks):
    """Merges `operator` and the operator it names into one 'op' token: `operator()`,
    `operator<=>`, `operator new[]`, `operator""_x`, `operator bool`, ..."""
    out = []
    n = len(toks)
    i = 0
    while i < n:
        t = toks[i]
        if not (t[0] == 'id' and t[1] == 'operator'):
            out.append(t)
            i += 1
            continue
        j = i + 1
        name = 'operator'
        if j < n:
            k, x, _ = toks[j]
            nxt = toks[j + 1][1] if j + 1 < n else None
            if k == 'p' and x == '(' and nxt == ')':
                name, j = 'operator()', j + 2
            elif k == 'p' and x == '[' and nxt == ']':
                name, j = 'operator[]', j + 2
            elif k == 'id' and x in ('new', 'delete'):
                name, j = 'operator ' + x, j + 1
                if j + 1 < n and toks[j][1] == '[' and toks[j + 1][1] == ']':
                    name, j = name + '[]', j + 2
            elif k == 'id' and x == 'co_await':
                name, j = 'operator co_await', j + 1
            elif k == 'str':
                name, j = 'operator' + x, j + 1
                if x == '""' and j < n and toks[j][0] == 'id':
                    name, j = name + toks[j][1], j + 1
            elif k == 'p' and x not in ('(', ')', '{', '}', '[', ']', ';'):
                name, j = 'operator' + x, j + 1
            elif k == 'id' or (k == 'p' and x == '::'):
                # conversion function: the type up to the `(`
                parts = []
                depth = 0
                while j < n:
                    k2, x2, _ = toks[j]
                    if k2 == 'p' and x2 in ('(', ')', '{', '}', ';', '[', ']'):
                        break
                    if depth == 0 and k2 == 'p' and x2 in (',', '='):
                        break
                    if x2 == '<':
                        depth += 1
                    elif x2 == '>':
                        depth = max(0, depth - 1)
                    elif x2 == '>>':
                        depth = max(0, depth - 2)
                    parts.append(x2)
                    j += 1
                name = 'operator ' + _join(parts)
        out.append(('op', name, t[2]))
        i = j
    return out


def _join(texts):
    out = ''
    for x in texts:
        if out and (out[-1].isalnum() or out[-1] == '_') and (x[:1].isalnum() or x[:1] == '_'):
            out += ' '
        out += x
    return out


def match_brackets(toks):
    """match[i] = index of the bracket matching toks[i] (for ( [ { and ) ] }), or None."""
    match = [None] * len(toks)
    stack = []
    for i, (kind, text, _) in enumerate(toks):
        if kind != 'p':
            continue
        if text in _OPENERS:
            stack.append(i)
        elif text in _CLOSERS:
            want = _CLOSERS[text]
            for s in range(len(stack) - 1, -1, -1):
                if toks[stack[s]][1] == want:
                    o = stack[s]
                    del stack[s:]
                    match[o] = i
                    match[i] = o
                    break
    return match


# ---------------------------------------------------------------------------------------------
# Declaration parser.

# Identifiers that never name a function when followed by a parenthesis.
_NOT_NAME = {
    'decltype', 'alignas', 'alignof', 'sizeof', 'noexcept', 'throw', '__attribute__', '__declspec',
    'requires', 'static_assert', 'explicit', 'asm', '__asm__', '__asm', 'typeof', '__typeof__',
    'return', 'if', 'while', 'for', 'switch', 'catch', 'typeid', 'co_await', 'co_return',
    'co_yield', 'new', 'delete', 'void', 'int', 'char', 'bool', 'float', 'double', 'long', 'short',
    'unsigned', 'signed', 'auto', 'const', 'volatile', 'constexpr', 'consteval', 'constinit',
    'static', 'inline', 'virtual', 'extern', 'typename', 'template', 'class', 'struct', 'union',
    'enum', 'namespace', 'using', 'typedef', 'friend', 'mutable', 'register', 'thread_local',
    'override', 'final', 'try', '__restrict', '__restrict__', 'restrict', 'this', 'operator',
    'default', 'case', 'goto', 'do', 'else', 'public', 'private', 'protected', 'export',
}
_CLASS_KEYS = ('class', 'struct', 'union', 'enum')
_ACCESS = ('public', 'private', 'protected')
_PREFIX_GROUP_KEYWORDS = ('alignas', '__attribute__', '__declspec')
# Tokens before `requires` that make `requires (...) {` a requires-expression, not a requires-clause
# followed by the function body. (Groups are items; their opening token is no context.)
_REQUIRES_EXPR_CONTEXT = {'=', 'requires', '&&', '||', '!', 'and', 'or', 'not'}


class Function:
    __slots__ = ('path', 'name', 'line', 'end_line')

    def __init__(self, path, name, line, end_line):
        self.path = path
        self.name = name
        self.line = line
        self.end_line = end_line

    @property
    def length(self):
        return self.end_line - self.line + 1


class _Parser:
    def __init__(self, toks, path):
        self.t = toks
        self.m = match_brackets(toks)
        self.path = path
        self.functions = []
        self.n = len(toks)

    def close_of(self, i, end):
        j = self.m[i]
        return j if j is not None else end

    def end_line(self, close):
        if close < self.n:
            return self.t[close][2]
        return self.t[-1][2] if self.t else 1

    def scope(self, i, end, is_class, prefix=''):
        """Parses the declarations in toks[i:end]."""
        t = self.t
        stmt = i
        had_body = False
        while i < end:
            kind, text, _ = t[i]
            if kind == 'p':
                if text == ';':
                    i += 1
                    stmt, had_body = i, False
                    continue
                if text in _CLOSERS:  # stray closer
                    i += 1
                    stmt, had_body = i, False
                    continue
                if text in ('(', '['):
                    j = self.m[i]
                    i = j + 1 if j is not None and j < end else i + 1
                    continue
                if text == '{':
                    close = self.close_of(i, end)
                    if close > end:
                        close = end
                    what, info = ('part', None) if had_body else self.classify(stmt, i)
                    if what == 'function':
                        name, line, try_block = info
                        if try_block:
                            close = self.handlers(close, end)
                        self.functions.append(Function(self.path, prefix + name, line, self.end_line(close)))
                        i = close + 1
                        stmt, had_body = i, False
                    elif what == 'lambda':  # the statement goes on after the body
                        name, line = info
                        self.functions.append(Function(self.path, prefix + name, line, self.end_line(close)))
                        i = close + 1
                    elif what in ('class', 'enum'):
                        if what == 'class':
                            self.scope(i + 1, close, True, prefix + info + '::' if info else prefix)
                        i = close + 1
                        had_body = True
                    elif what in ('namespace', 'extern', 'block'):
                        self.scope(i + 1, close, False, prefix)
                        i = close + 1
                        stmt, had_body = i, False
                    else:  # part of the declaration: an initializer, requires-expression, ...
                        i = close + 1
                    continue
            elif kind == 'id' and is_class and i == stmt and text in _ACCESS:
                if i + 1 < end and t[i + 1][1] == ':':
                    i += 2
                    stmt = i
                    continue
            i += 1

    def handlers(self, close, end):
        """After the body of a function-try-block: the end of its last `catch (...) { }`."""
        t = self.t
        while close + 1 < end and t[close + 1][1] == 'catch' and close + 2 < end and t[close + 2][1] == '(':
            p = self.m[close + 2]
            if p is None or p + 1 >= end or t[p + 1][1] != '{':
                break
            close = self.close_of(p + 1, end)
        return close

    def items(self, stmt, b):
        """Indices of the top-level items of toks[stmt:b]; a bracketed group is one item (its
        opening token)."""
        t, m = self.t, self.m
        out = []
        j = stmt
        while j < b:
            out.append(j)
            if t[j][0] == 'p' and t[j][1] in _OPENERS and m[j] is not None and m[j] < b:
                j = m[j] + 1
            else:
                j += 1
        return out

    def strip(self, items):
        """Drops template headers, [[attributes]] and alignas/__attribute__/__declspec groups."""
        t = self.t
        out = []
        k = 0
        n = len(items)
        while k < n:
            kind, text, _ = t[items[k]]
            if kind == 'id' and text == 'template' and k + 1 < n and t[items[k + 1]][1] == '<':
                depth = 0
                k += 1
                while k < n:
                    x = t[items[k]][1]
                    if x == '<':
                        depth += 1
                    elif x in ('>', '>='):
                        depth -= 1
                    elif x in ('>>', '>>='):
                        depth -= 2
                    k += 1
                    if depth <= 0:
                        break
                continue
            if kind == 'p' and text == '[' and items[k] + 1 < self.n and t[items[k] + 1][1] == '[':
                k += 1
                continue
            if kind == 'id' and text in _PREFIX_GROUP_KEYWORDS and k + 1 < n and t[items[k + 1]][1] == '(':
                k += 2
                continue
            out.append(items[k])
            k += 1
        return out

    def classify(self, stmt, b):
        t = self.t
        items = self.items(stmt, b)
        if not items:
            return 'block', None
        # A requires-expression: `requires {` or `requires (params) {` in an expression.
        last = items[-1]
        if t[last][1] == 'requires':
            return 'part', None
        if t[last][1] == '(' and len(items) >= 2 and t[items[-2]][1] == 'requires':
            if len(items) == 2 or t[items[-3]][1] in _REQUIRES_EXPR_CONTEXT:
                return 'part', None
        lam = self.lambda_at(items)
        if lam is not None:
            return 'lambda', lam
        v = self.strip(items)
        if not v:
            return 'block', None
        texts = [t[j][1] for j in v]
        kinds = [t[j][0] for j in v]
        if any(x == 'namespace' and k == 'id' for x, k in zip(texts, kinds)):
            return 'namespace', None
        if len(v) >= 2 and kinds[-1] == 'str' and texts[-2] == 'extern':
            return 'extern', None
        # Angle depth before each item (a top-level `<` in a declaration is a template bracket).
        depth_at = []
        depth = 0
        for x, k in zip(texts, kinds):
            depth_at.append(depth)
            if k != 'p':
                continue
            if x == '<':
                depth += 1
            elif x in ('>', '>='):
                depth = max(0, depth - 1)
            elif x in ('>>', '>>='):
                depth = max(0, depth - 2)

        def call_like(k):
            """Item k is a `(` group right after something that can be a name."""
            if texts[k] != '(' or kinds[k] != 'p' or depth_at[k] != 0 or k == 0:
                return False
            pk, px = kinds[k - 1], texts[k - 1]
            if pk == 'op':
                return True
            if pk == 'id':
                return px not in _NOT_NAME
            return pk == 'p' and px in ('>', '>>') and depth_at[k - 1] > 0

        # class / struct / union / enum body
        key = None
        for k in range(len(v)):
            if kinds[k] == 'id' and texts[k] in _CLASS_KEYS and depth_at[k] == 0:
                key = k
        if key is not None and not any(call_like(k) for k in range(key + 1, len(v))):
            if texts[key] == 'enum' or (key > 0 and texts[key - 1] == 'enum'):
                return 'enum', None
            return 'class', self.class_name(v, texts, key, depth_at)
        if any(x == '=' and k == 'p' and d == 0 for x, k, d in zip(texts, kinds, depth_at)):
            return 'part', None  # an initializer
        # function: the last name(...) group before `->`, a `:` (member initializers) or `try`
        cand = None
        stop = None
        for k in range(len(v)):
            x, kd = texts[k], kinds[k]
            if cand is not None and depth_at[k] == 0 and kd == 'p' and x in ('->', ':'):
                stop = k
                break
            if cand is not None and kd == 'id' and x == 'try' and depth_at[k] == 0:
                stop = k
                break
            if call_like(k):
                cand = k
        if cand is None:
            return 'part', None  # `Foo f{1, 2}`, `int a[]{...}`, ...
        end = stop if stop is not None else len(v)
        after_requires = False
        for k in range(cand + 1, end):
            x, kd = texts[k], kinds[k]
            if after_requires:
                continue
            if kd == 'id':
                if x == 'requires':
                    after_requires = True
                continue
            if kd in ('num', 'str', 'chr', 'op'):
                return 'part', None
            if x in ('&', '&&', '*'):
                continue
            if x == '(' and kinds[k - 1] == 'id':
                continue  # noexcept(...), throw(), a macro's arguments
            return 'part', None
        try_block = False
        if stop is not None:
            if texts[stop] == 'try':
                try_block = True
                if stop + 1 < len(v) and texts[stop + 1] == ':':
                    stop += 1
            if texts[stop] == ':':
                # member initializers: `name(...)`/`name{...}`, ...; a `{` right after a name is
                # an initializer, after a group or `...` it is the body
                if kinds[-1] in ('id', 'op') or texts[-1] in ('>', '>>', '::'):
                    return 'part', None
        name, line = self.name_before(v, cand)
        return 'function', (name, line, try_block)

    def lambda_at(self, items):
        """If the `{` after items opens the body of a lambda that initializes a variable
        (`auto f = [](int x) -> int {`), returns (name, line of the `[`); else None."""
        t = self.t
        k = len(items) - 1
        while k >= 0:
            j = items[k]
            kind, text, _ = t[j]
            if kind == 'p' and text == '[' and not (j + 1 < self.n and t[j + 1][1] == '['):
                break
            if kind == 'p' and text in ('=', ';', '{'):
                return None
            if kind in ('num', 'str', 'chr'):
                return None
            k -= 1
        if k < 1 or t[items[k - 1]][1] != '=':
            return None
        name = '<unnamed>'
        for q in range(k - 2, -1, -1):
            if t[items[q]][0] in ('id', 'op') and t[items[q]][1] not in _NOT_NAME:
                name = t[items[q]][1]
                break
        return name + ' (lambda)', t[items[k]][2]

    def name_before(self, v, cand):
        t = self.t
        parts = []
        line = None
        p = cand - 1
        expect_name = True
        while p >= 0:
            kind, text, ln = t[v[p]]
            if expect_name:
                if kind in ('id', 'op') and text not in _NOT_NAME:
                    parts.append(text)
                    if line is None:
                        line = ln
                    p -= 1
                    expect_name = False
                    continue
                if kind == 'p' and text in ('>', '>>'):  # template arguments: f<T>, Foo<T>::
                    depth = 0
                    q = p
                    while q >= 0:
                        x = t[v[q]][1]
                        if x == '>':
                            depth += 1
                        elif x == '>>':
                            depth += 2
                        elif x == '<':
                            depth -= 1
                        if depth <= 0:
                            break
                        q -= 1
                    if q < 0:
                        break
                    parts.append(_join([self.group_text(j) for j in v[q:p + 1]]))
                    p = q - 1
                    continue
                break
            if kind == 'p' and text == '::':
                parts.append('::')
                p -= 1
                expect_name = True
                continue
            if kind == 'p' and text == '~' and parts and not parts[-1].startswith('~'):
                parts[-1] = '~' + parts[-1]
                p -= 1
                continue
            break
        if line is None:
            line = t[v[cand]][2]
        name = ''.join(reversed(parts)) if parts else '<unnamed>'
        return name, line

    def class_name(self, v, texts, key, depth_at):
        """The name after a class-key (`Foo` in `struct [[x]] Foo final : Base {`), or None."""
        last = len(v)
        for k in range(key + 1, len(v)):
            if texts[k] == ':' and depth_at[k] == 0:
                last = k
                break
        while last - 1 > key and texts[last - 1] in ('final', 'sealed'):
            last -= 1
        if last - 1 <= key:
            return None
        name, _ = self.name_before(v, last)
        return None if name == '<unnamed>' else name

    def group_text(self, j):
        x = self.t[j][1]
        if x in _OPENERS and self.m[j] is not None:
            return x + '...' + _OPENERS[x]
        return x


def find_functions(src, path='<string>'):
    toks = merge_operators(resolve_conditionals(lex(src)))
    parser = _Parser(toks, path)
    parser.scope(0, len(toks), False)
    return parser.functions


# ---------------------------------------------------------------------------------------------
# Command line.

def collect_files(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, names in os.walk(p):
                dirs.sort()
                for name in sorted(names):
                    if name.endswith(EXTENSIONS):
                        files.append(os.path.normpath(os.path.join(root, name)))
        else:
            files.append(os.path.normpath(p))
    return files


def read_source(path):
    with open(path, 'rb') as f:
        data = f.read()
    text = data.decode('utf-8', errors='replace')
    if text.startswith('\ufeff'):
        text = text[1:]
    return text


def main(argv=None):
    ap = argparse.ArgumentParser(
        description='Report C++ functions longer than a limit (length = closing-brace line - '
                    'name line + 1).')
    ap.add_argument('--max', type=int, default=100, help='the limit in lines (default 100)')
    ap.add_argument('--list', action='store_true', help='list every function, longest first')
    ap.add_argument('--top', type=int, metavar='N', help='list the N longest functions')
    ap.add_argument('--self-test', action='store_true', help='run the built-in tests and exit')
    ap.add_argument('paths', nargs='*', metavar='DIR_OR_FILE')
    args = ap.parse_args(argv)
    if args.self_test:
        return self_test()
    if not args.paths:
        ap.print_usage(sys.stderr)
        print('%s: error: no DIR_OR_FILE given' % ap.prog, file=sys.stderr)
        return 2
    if args.max < 1:
        print('%s: error: --max must be at least 1' % ap.prog, file=sys.stderr)
        return 2
    if args.top is not None and args.top < 0:
        print('%s: error: --top must not be negative' % ap.prog, file=sys.stderr)
        return 2
    missing = [p for p in args.paths if not os.path.exists(p)]
    if missing:
        for p in missing:
            print('%s: error: no such file or directory: %s' % (ap.prog, p), file=sys.stderr)
        return 2

    functions = []
    for path in collect_files(args.paths):
        try:
            src = read_source(path)
        except OSError as e:
            print('%s: error: cannot read %s: %s' % (ap.prog, path, e), file=sys.stderr)
            return 2
        functions.extend(find_functions(src, path))

    def order(f):
        return (-f.length, f.path, f.line)

    ranked = sorted(functions, key=order)
    if args.list or args.top is not None:
        shown = ranked if args.top is None else ranked[:args.top]
        for f in shown:
            print('%s:%d: %s %d lines' % (f.path, f.line, f.name, f.length))
    over = [f for f in ranked if f.length > args.max]
    for f in over:
        print('%s:%d: %s: %d lines (limit %d)' % (f.path, f.line, f.name, f.length, args.max))
    files = len({f.path for f in over})
    print('%d function(s) over %d lines in %d files (functions scanned: %d)'
          % (len(over), args.max, files, len(functions)))
    return 1 if over else 0


# ---------------------------------------------------------------------------------------------
# Self-test: each case is C++ text and the functions expected in it, as (name, line, length).

_SELF_TESTS = [
    ('comments, strings, characters, digit separators', r'''
// void fake() {
/* void fake2() {
*/
int f(int a) {
  const char* s = "}{\"{";
  char c = '{';
  char d = '\'';
  int n = 1'000'000 + 0x1'0;  // }
  return a;
}
''', [('f', 5, 7)]),
    ('raw strings', r'''
const char* k = R"(
void g() { {
)";
std::string h() {
  return R"glsl(
  void main() { if (x) { )" }
  )glsl" + std::string(u8R"x(}})x");
}
''', [('h', 5, 5)]),
    ('classes, constructors, destructors, operators, initializers', r'''
namespace a::b {
namespace {
struct [[nodiscard]] S final : public Base<decltype(f())> {
  std::vector<int> v{1, 2};
  int arr[2] = {3, 4};
  std::function<void(int)> cb{[](int) { return; }};
  std::function<int()> get_ = [this]() mutable -> int {
    return 1;
  };
  enum class E : int { X, Y };
  S() = default;
  S(const S&) = delete;
  S(int x) : v_(x), w_{x, 1}, Base<int>{2} {
    go();
  }
  ~S() {
  }
  auto operator<=>(const S&) const = default;
  bool operator()(int a) const noexcept(noexcept(a + 1)) {
    return a;
  }
  struct Inner {
    void deep() override final {}
   public:
    explicit operator bool() const & { return true; }
  };
 private:
  int v_;
};
}  // namespace
}
template <>
struct std::hash<a::b::S> final {
  size_t operator()(const a::b::S&) const noexcept { return 0; }
  struct { void f() {} } anon_;
};
''', [('S::get_ (lambda)', 8, 3), ('S::S', 14, 3), ('S::~S', 17, 2), ('S::operator()', 20, 3),
      ('S::Inner::deep', 24, 1), ('S::Inner::operator bool', 26, 1),
      ('std::hash<a::b::S>::operator()', 35, 1), ('std::hash<a::b::S>::f', 36, 1)]),
    ('templates, trailing returns, requires', r'''
template <class T, class = std::enable_if_t<(sizeof(T) > 2)>>
auto twice(T x) -> decltype(x + x) {
  return x + x;
}
template <class T>
concept C = requires(T a) { a.f(); };
template <class T>
  requires requires(T a) { a.g(); }
void usesC(T) {
}
template <class T>
void constrained(T) requires (sizeof(T) > 1) {
}
template <class T>
constexpr bool kHas = requires { typename T::type; };
template <class T>
void Foo<T>::bar() const & {
}
template <>
std::vector<std::pair<int, int>> Foo<int>::operator<<(int) {
  return {};
}
''', [('twice', 3, 3), ('usesC', 10, 2), ('constrained', 13, 2), ('Foo<T>::bar', 18, 2),
      ('Foo<int>::operator<<', 21, 3)]),
    ('preprocessor', r'''
#define MACRO(x) \
  void notreal() { \
  }
#if 0
void dead() {
}
#endif
#ifdef X
void p(int a) {
#else
void p() {
#endif
  int y = 0;
}
#if defined(A)
void q() {
}
#else
void q2() { }
#endif
''', [('p', 10, 6), ('q', 17, 2), ('q2', 20, 1)]),
    ('function-try-blocks', r'''
int risky() try {
  return 1;
} catch (const std::exception& e) {
  return 2;
} catch (...) {
  return 3;
}
Foo::Foo() try : x_(1), y_{2} {
} catch (...) {
}
''', [('risky', 2, 7), ('Foo::Foo', 9, 3)]),
    ('extern "C", brace initializers, lambdas and local classes', r'''
extern "C" {
int c_api(void) {
  return 0;
}
}
constexpr std::array<int, 3> kArr{1, 2, 3};
Foo gFoo{1, 2};
static const int kTab[] = {1, 2, 3};
auto kLambda = [](int x) { return x; };
constexpr auto kT = [] {
  std::array<int, 2> a{};
  return a;
}();
struct P { int a; } gP{1};
std::pair<int, int> mk(int a, int b) {
  auto l = [&](int z) {
    struct Local { void m() {} };
    return z;
  };
  return {a, b};
}
void StarkProver::prepare(
    const Input& in) {
}
Foo::~Foo() {}
inline void Foo::operator delete[](void*) {}
''', [('c_api', 3, 3), ('kLambda (lambda)', 10, 1), ('kT (lambda)', 11, 4), ('mk', 16, 7),
      ('StarkProver::prepare', 23, 3), ('Foo::~Foo', 26, 1), ('Foo::operator delete[]', 27, 1)]),
    ('attributes, quotes in literals, macros without a semicolon, default arguments', r'''
[[nodiscard]] inline int g(const Foo& x = {}, char q = '"', const char* s = "don't {") noexcept {
  return 0;
}
DECLARE_THING(x)
void after_macro() {
}
template <class T>
  requires (sizeof(T) > 1)
struct Z {
  friend bool operator==(const Z&, const Z&) { return true; }
};
Foo::operator bool() const {
  return true;
}
constexpr auto mask = 0xFF'FF'u;
auto Foo::operator<=>(const Foo& o) const -> std::strong_ordering { return {}; }
''', [('g', 2, 3), ('after_macro', 6, 2), ('Z::operator==', 11, 1), ('Foo::operator bool', 13, 3),
      ('Foo::operator<=>', 17, 1)]),
    ('CRLF line endings and a continued // comment', '// a comment \\\r\nvoid not_code() {\r\n'
     '}\r\nint real()\r\n{\r\n  return 1;\r\n}\r\n', [('real', 4, 4)]),
]


def self_test():
    failures = 0
    for title, src, expected in _SELF_TESTS:
        got = [(f.name, f.line, f.length) for f in find_functions(src)]
        if got != expected:
            failures += 1
            print('FAIL: %s\n  expected %s\n  got      %s' % (title, expected, got))
    # usage error: a path that does not exist
    saved, sys.stderr = sys.stderr, io.StringIO()
    try:
        status = main(['/nonexistent/path/for/self-test'])
    finally:
        sys.stderr = saved
    if status != 2:
        failures += 1
        print('FAIL: a missing path must exit with status 2')
    if failures:
        print('self-test: %d case(s) failed' % failures)
        return 1
    print('self-test: %d cases passed' % (len(_SELF_TESTS) + 1))
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except BrokenPipeError:  # e.g. piped into head
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)

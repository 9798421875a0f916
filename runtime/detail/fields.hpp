// Internal: member-wise reflection of plain aggregates (kernel Args), without macros: the number of
// members, a tuple of references to them, and (GCC) their names. runtime/kernel.hpp builds on it.
// Generated once by a script for up to 32 members; the cascade below is regular by construction.
#pragma once

#include <cstddef>
#include <string_view>
#include <tuple>
#include <type_traits>

namespace vkstark::detail {

inline constexpr size_t kMaxFields = 32;

// Aggregate member counting: T{Any, Any, ...} is valid up to the number of members. Members with
// constructors (views, field types) cannot absorb brace elision, so each counts as one.
struct AnyField {
  template <class U>
  constexpr operator U() const noexcept;  // NOLINT: declared only, never called
};
template <class T, class... A>
constexpr size_t field_count() {
  if constexpr (requires { T{A{}..., AnyField{}}; })
    return field_count<T, A..., AnyField>();
  else
    return sizeof...(A);
}

// std::tie of the N members of `t`, in declaration order.
template <size_t N, class T>
constexpr auto tie_fields(T& t) {
  static_assert(N <= kMaxFields, "kernel Args: too many members");
  // clang-format off
  if constexpr (N == 0) {
    return std::tie();
  } else if constexpr (N == 1) {
    auto& [m0] = t;
    return std::tie(m0);
  } else if constexpr (N == 2) {
    auto& [m0, m1] = t;
    return std::tie(m0, m1);
  } else if constexpr (N == 3) {
    auto& [m0, m1, m2] = t;
    return std::tie(m0, m1, m2);
  } else if constexpr (N == 4) {
    auto& [m0, m1, m2, m3] = t;
    return std::tie(m0, m1, m2, m3);
  } else if constexpr (N == 5) {
    auto& [m0, m1, m2, m3, m4] = t;
    return std::tie(m0, m1, m2, m3, m4);
  } else if constexpr (N == 6) {
    auto& [m0, m1, m2, m3, m4, m5] = t;
    return std::tie(m0, m1, m2, m3, m4, m5);
  } else if constexpr (N == 7) {
    auto& [m0, m1, m2, m3, m4, m5, m6] = t;
    return std::tie(m0, m1, m2, m3, m4, m5, m6);
  } else if constexpr (N == 8) {
    auto& [m0, m1, m2, m3, m4, m5, m6, m7] = t;
    return std::tie(m0, m1, m2, m3, m4, m5, m6, m7);
  } else if constexpr (N == 9) {
    auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8] = t;
    return std::tie(m0, m1, m2, m3, m4, m5, m6, m7, m8);
  } else if constexpr (N == 10) {
    auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9] = t;
    return std::tie(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9);
  } else if constexpr (N == 11) {
    auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10] = t;
    return std::tie(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10);
  } else if constexpr (N == 12) {
    auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11] = t;
    return std::tie(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11);
  } else if constexpr (N == 13) {
    auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12] = t;
    return std::tie(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12);
  } else if constexpr (N == 14) {
    auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13] = t;
    return std::tie(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13);
  } else if constexpr (N == 15) {
    auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14] = t;
    return std::tie(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14);
  } else if constexpr (N == 16) {
    auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15] = t;
    return std::tie(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15);
  } else if constexpr (N == 17) {
    auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16] = t;
    return std::tie(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16);
  } else if constexpr (N == 18) {
    auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17] = t;
    return std::tie(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17);
  } else if constexpr (N == 19) {
    auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18] = t;
    return std::tie(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18);
  } else if constexpr (N == 20) {
    auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19] = t;
    return std::tie(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19);
  } else if constexpr (N == 21) {
    auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20] = t;
    return std::tie(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20);
  } else if constexpr (N == 22) {
    auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20, m21] = t;
    return std::tie(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20, m21);
  } else if constexpr (N == 23) {
    auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20, m21, m22] = t;
    return std::tie(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20, m21, m22);
  } else if constexpr (N == 24) {
    auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20, m21, m22, m23] = t;
    return std::tie(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20, m21, m22, m23);
  } else if constexpr (N == 25) {
    auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20, m21, m22, m23, m24] = t;
    return std::tie(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20, m21, m22, m23, m24);
  } else if constexpr (N == 26) {
    auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20, m21, m22, m23, m24, m25] = t;
    return std::tie(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20, m21, m22, m23, m24, m25);
  } else if constexpr (N == 27) {
    auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20, m21, m22, m23, m24, m25, m26] = t;
    return std::tie(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20, m21, m22, m23, m24, m25, m26);
  } else if constexpr (N == 28) {
    auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20, m21, m22, m23, m24, m25, m26, m27] = t;
    return std::tie(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20, m21, m22, m23, m24, m25, m26, m27);
  } else if constexpr (N == 29) {
    auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20, m21, m22, m23, m24, m25, m26, m27, m28] = t;
    return std::tie(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20, m21, m22, m23, m24, m25, m26, m27, m28);
  } else if constexpr (N == 30) {
    auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20, m21, m22, m23, m24, m25, m26, m27, m28, m29] = t;
    return std::tie(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20, m21, m22, m23, m24, m25, m26, m27, m28, m29);
  } else if constexpr (N == 31) {
    auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20, m21, m22, m23, m24, m25, m26, m27, m28, m29, m30] = t;
    return std::tie(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20, m21, m22, m23, m24, m25, m26, m27, m28, m29, m30);
  } else if constexpr (N == 32) {
    auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20, m21, m22, m23, m24, m25, m26, m27, m28, m29, m30, m31] = t;
    return std::tie(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20, m21, m22, m23, m24, m25, m26, m27, m28, m29, m30, m31);
  }
  // clang-format on
}

template <class T>
constexpr auto tie_all(T& t) {
  return tie_fields<field_count<std::remove_const_t<T>>()>(t);
}

// Member names: the address of member I of an object that is declared but never defined is a
// constant expression; GCC spells it out in __PRETTY_FUNCTION__ as "... (& obj.T::name)".
template <class T>
struct FieldNameProbe {
  const T value;
};
template <class T>
extern const FieldNameProbe<T> field_name_probe;

template <auto Ptr>
consteval std::string_view pretty_pointer() {
  return __PRETTY_FUNCTION__;
}

consteval std::string_view member_from_pretty(std::string_view s) {
  size_t close = s.rfind(')');
  if (close == std::string_view::npos) close = s.rfind(']');
  size_t start = close;
  while (start > 0 && (s[start - 1] == '_' || (s[start - 1] >= 'a' && s[start - 1] <= 'z') ||
                       (s[start - 1] >= 'A' && s[start - 1] <= 'Z') || (s[start - 1] >= '0' && s[start - 1] <= '9')))
    --start;
  return s.substr(start, close - start);
}

template <class T, size_t I>
consteval std::string_view field_name() {
  return member_from_pretty(pretty_pointer<&std::get<I>(tie_all(field_name_probe<T>.value))>());
}

}  // namespace vkstark::detail

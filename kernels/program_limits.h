// Limits of the scalar program (kernels/program.hpp), shared by the C++ code and the GLSL body
// (kernels/glsl/scalar_program.comp): plain C preprocessor definitions, which both languages read.
#ifndef VKSTARK_PROGRAM_LIMITS_H
#define VKSTARK_PROGRAM_LIMITS_H

// Registers of one program (each an extension-field element).
#define VKSTARK_PROGRAM_REGISTERS 32
// Words of code one ScalarProgram dispatch runs: the GLSL body copies the code into shared memory
// of this many words (8 KiB) before interpreting it.
#define VKSTARK_PROGRAM_MAX_WORDS 2048

#endif

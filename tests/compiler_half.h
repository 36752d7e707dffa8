// The compiler's own IEEE binary16 type, an independent oracle for f16
// conversions: `CompilerHalf` and MXC_HAVE_COMPILER_HALF (0 when the
// compiler has none; the tests that use it then say so). GCC's C++ front end
// has _Float16 on x86 (GCC >= 12, libgcc __truncsfhf2 / F16C) but not on
// AArch64 (GCC 12 defines __FLT16_MANT_DIG__ there all the same), where the
// ACLE type __fp16 is IEEE binary16 (__ARM_FP16_FORMAT_IEEE; ACLE section
// "Half-precision floating-point") with single-rounding conversions from
// float and double (FCVT).
#pragma once

#if defined(__aarch64__) && defined(__ARM_FP16_FORMAT_IEEE)
using CompilerHalf = __fp16;
#define MXC_HAVE_COMPILER_HALF 1
#elif (defined(__x86_64__) || defined(__i386__)) && defined(__FLT16_MANT_DIG__)
using CompilerHalf = _Float16;
#define MXC_HAVE_COMPILER_HALF 1
#else
#define MXC_HAVE_COMPILER_HALF 0
#endif

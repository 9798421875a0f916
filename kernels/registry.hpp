// Every compiled kernel, listed once. The build-time ABI generator (kernels/glsl/generate_abi.cpp)
// writes each one's GLSL interface from this list, and checks it against the .comp files: a kernel
// without a GLSL body, or a body without a kernel, fails the build.
#pragma once

#include "kernels/basic.hpp"
#include "kernels/batch_constraint.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/gkr.hpp"
#include "kernels/hashing.hpp"
#include "kernels/merkle.hpp"
#include "kernels/mle.hpp"
#include "kernels/mle_tables.hpp"
#include "kernels/ntt.hpp"
#include "kernels/pcs.hpp"
#include "kernels/program.hpp"
#include "kernels/stacked_reduction.hpp"
#include "kernels/transcript.hpp"
#include "kernels/whir.hpp"

// clang-format off
#define VKSTARK_KERNELS(X)                                                                         \
  X(FillU32) X(CopyU32)                                                                            \
  X(FpAdd) X(FpMul) X(FpScale) X(Fp4Add) X(Fp4Mul) X(Fp4Scale) X(Fp4Repeat)                        \
  X(Poseidon2Permute) X(HashRows) X(HashRowsAbsorb) X(MerkleCompressLayer) X(GatherRows)            \
  X(GatherPaths) X(MerkleCompressLevels)                                                          \
  X(MleEvalColumnsPartials) X(EqUniWeights) X(PleFoldColumns)                                     \
  X(GkrFractionLayers) X(EqSuffixTables) X(GkrSumcheckPartials) X(GkrFoldSumcheckPartials)         \
  X(NttTwiddles) X(NttStageFp) X(NttStageFp4) X(NttStageSharedFp) X(NttStageSharedFp4)             \
  X(NttStageVecFp) X(NttStageVec0Fp) X(NttCopyPad) X(NttRsMessage) X(NttZetaFp) X(NttZetaFp4)      \
  X(NttTranspose) X(NttRsMessageVec) X(NttRsMessageVecFrom) X(NttMarkRows) X(NttMarkInputs)        \
  X(StackColumns)                                                                                  \
  X(StackedSliceWeights) X(StackedRound0SliceSums) X(StackedRound0Weigh) X(StackedRound0Sums)      \
  X(StackedRound0Poly) X(StackedFoldWeights) X(StackedFoldChunks) X(StackedSliceCoeffs)            \
  X(StackedKernelTable) X(StackedFoldPartials)                                                     \
  X(TranscriptObserve) X(TranscriptSample) X(TranscriptSampleBits) X(TranscriptGrindSearch)        \
  X(TranscriptGrindFinish) X(TranscriptObserveSample) X(ScalarProgram) X(TranscriptGrindCoop)    \
  X(BatchColumnsExt) X(BatchColumnsExtVec) X(MobiusEqTable) X(EqTable) X(UCube)                    \
  X(SumcheckProductPartials) X(ReduceFp4)                                                          \
  X(FoldPairsFp4) X(FoldPairs2Fp4) X(EvalPolyPartials) X(QueryPoints) X(EqPowAccumulate)           \
  X(ZerocheckCosetExtend) X(ZerocheckWeightedSums) X(ZerocheckInterpolate) X(ZerocheckRound0Polys) \
  X(ZerocheckEqPolys) X(ZerocheckBatchRound0) X(Fp4Powers) X(Fp4Gather)
// clang-format on

// The WHIR proof's regions in the device proof buffer (prover.hpp), from its field list. Apart
// from proof.cpp, whose byte codec needs no runtime (the fuzz targets build it alone).
#include "stages/whir/prover.hpp"

namespace vkstark {

WhirRegions reserve_whir_regions(ProofLayout& layout, const WhirShape& shape) {
  // params.validate() rejects such shapes; without the check num_queries[0] would be read past the end.
  if (shape.rounds() == 0) throw InputError("WHIR proof layout: no WHIR round");
  return WhirRegions::reserve(layout, [shape](auto& v, WhirProof& p) { whir_fields(v, p, &shape); });
}

}  // namespace vkstark

# The include roots of the layers' libraries (CMakeLists.txt, "The library"; docs/architecture.md,
# "Layers").
#
# vkstark_layer_view(<layer> <layers below...>) makes ${CMAKE_BINARY_DIR}/layers/<layer>/ with a
# symbolic link to the source folder of <layer> and of each layer below it, nothing else, and sets
# VKSTARK_VIEW_<layer> to it. A library whose include root is that folder finds
# "stages/prover.hpp" only where stages is its layer or below it: an include of a layer above
# fails to compile, naming the header.
function(vkstark_layer_view layer)
  set(view ${CMAKE_BINARY_DIR}/layers/${layer})
  file(MAKE_DIRECTORY ${view})
  set(visible ${layer} ${ARGN})
  # Links a layer list of an earlier configure left, and the layer no longer sees, go.
  file(GLOB present RELATIVE ${view} ${view}/*)
  foreach(name IN LISTS present)
    if(NOT name IN_LIST visible)
      file(REMOVE ${view}/${name})
    endif()
  endforeach()
  foreach(name IN LISTS visible)
    if(NOT IS_DIRECTORY ${PROJECT_SOURCE_DIR}/${name})
      message(FATAL_ERROR "vkstark_layer_view(${layer}): no source folder '${name}'")
    endif()
    if(NOT IS_SYMLINK ${view}/${name})
      file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${name} ${view}/${name} SYMBOLIC)
    endif()
  endforeach()
  set(VKSTARK_VIEW_${layer} ${view} PARENT_SCOPE)
endfunction()

// The page's template, the viewer and three.js, embedded at build time (embed_assets.cmake
// writes their definitions from replay/page/ and the pinned npm package in replay/js/).
#pragma once

#include <string>

namespace gjk::replay::assets {

const std::string& page_template();      ///< replay/page/replay.html
const std::string& viewer_js();          ///< replay/page/viewer.js
const std::string& three_js();           ///< three/build/three.module.min.js
const std::string& orbit_controls_js();  ///< three/examples/jsm/controls/OrbitControls.js
const std::string& three_version();      ///< three's package.json "version"

}  // namespace gjk::replay::assets

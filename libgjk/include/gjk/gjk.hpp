// Umbrella header of libgjk.
#pragma once

#include "gjk/batch.hpp"
#include "gjk/broadphase.hpp"
#include "gjk/gjk_epa.hpp"
#include "gjk/mesh.hpp"
#include "gjk/mesh_pair.hpp"
#include "gjk/planar.hpp"
#include "gjk/queries.hpp"
#include "gjk/results.hpp"
#include "gjk/shapes.hpp"
#include "gjk/simplex.hpp"

// The planner layer's exception: bad options or arguments, with the field and value named.
#pragma once

#include <stdexcept>

namespace gjk::planner {

class PlannerError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace gjk::planner

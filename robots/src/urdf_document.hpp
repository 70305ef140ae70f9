// What a URDF text declares, read independently of urdfdom (tinyxml2), so that elements urdfdom
// drops with only a console line (an unknown geometry, a NaN radius, a link detached from the
// tree) are found and reported instead of silently missing from every check (issue 15 item 10).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace gjk::robots::detail {

/// Deepest element nesting accepted in a URDF. XML parsers recurse per level: urdfdom's parser
/// overflowed the stack at 100,000 levels (issue 15 item 5); a URDF needs about 5.
constexpr int kMaxXmlNesting = 200;

/// Throws ModelError naming the line when elements nest deeper than kMaxXmlNesting. One linear
/// pass over the text (comments, CDATA, processing instructions and quoted attribute values
/// skipped), before any parser sees it.
void check_xml_nesting(const std::string& text, const std::string& name);

struct DeclaredCollision {
  int line = 0;
  std::string geometry;  ///< the geometry element's first child tag ("box", "mesh", ...) or ""
};

struct DeclaredLink {
  int line = 0;
  std::vector<DeclaredCollision> collisions;
};

struct DeclaredJoint {
  std::string name;
  int line = 0;
};

/// The <robot>'s links and joints, in document order.
struct DeclaredUrdf {
  std::vector<std::string> link_order;
  std::map<std::string, DeclaredLink> links;
  std::vector<DeclaredJoint> joints;
};

/// Parses `text` with tinyxml2; throws ModelError naming the line for malformed XML or a
/// missing <robot> root.
DeclaredUrdf read_declared(const std::string& text, const std::string& name);

}  // namespace gjk::robots::detail

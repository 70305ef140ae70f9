#include "urdf_document.hpp"

#include "gjk/robots/robot_model.hpp"

#include <tinyxml2.h>

#include <cstring>

namespace gjk::robots::detail {

void check_xml_nesting(const std::string& text, const std::string& name) {
  int depth = 0, line = 1;
  const size_t n = text.size();
  // Advances i past `end`, counting lines; false when `end` never comes.
  const auto skip_to = [&](size_t& i, const char* end) {
    const size_t found = text.find(end, i);
    const size_t stop = found == std::string::npos ? n : found + std::strlen(end);
    for (; i < stop; ++i) line += text[i] == '\n';
    return found != std::string::npos;
  };
  for (size_t i = 0; i < n;) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (c != '<') {
      ++i;
      continue;
    }
    if (text.compare(i, 4, "<!--") == 0) {
      skip_to(i, "-->");
    } else if (text.compare(i, 9, "<![CDATA[") == 0) {
      skip_to(i, "]]>");
    } else if (text.compare(i, 2, "<?") == 0) {
      skip_to(i, "?>");
    } else if (text.compare(i, 2, "<!") == 0) {
      skip_to(i, ">");
    } else if (text.compare(i, 2, "</") == 0) {
      --depth;
      skip_to(i, ">");
    } else {  // a start tag: find its end outside quoted attribute values
      char quote = 0;
      size_t j = i + 1;
      for (; j < n; ++j) {
        const char d = text[j];
        if (d == '\n') ++line;
        if (quote != 0) {
          if (d == quote) quote = 0;
        } else if (d == '"' || d == '\'') {
          quote = d;
        } else if (d == '>') {
          break;
        }
      }
      const bool self_closing = j < n && j > i && text[j - 1] == '/';
      if (!self_closing && ++depth > kMaxXmlNesting) {
        throw ModelError("URDF '" + name + "', line " + std::to_string(line) +
                         ": elements nested deeper than " + std::to_string(kMaxXmlNesting) +
                         " levels (a URDF needs about 5)");
      }
      i = j + 1;
    }
  }
}

DeclaredUrdf read_declared(const std::string& text, const std::string& name) {
  tinyxml2::XMLDocument doc;
  if (doc.Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS) {
    std::string what = doc.ErrorStr() ? doc.ErrorStr() : "malformed XML";
    throw ModelError("URDF '" + name + "', line " + std::to_string(doc.ErrorLineNum()) +
                     ": malformed XML (" + what + ")");
  }
  const tinyxml2::XMLElement* robot = doc.FirstChildElement("robot");
  if (robot == nullptr) throw ModelError("URDF '" + name + "': no <robot> root element");
  DeclaredUrdf declared;
  for (const tinyxml2::XMLElement* e = robot->FirstChildElement(); e != nullptr;
       e = e->NextSiblingElement()) {
    const char* element_name = e->Attribute("name");
    const std::string tag = e->Name();
    if (tag == "link" && element_name != nullptr) {
      DeclaredLink link;
      link.line = e->GetLineNum();
      for (const tinyxml2::XMLElement* c = e->FirstChildElement("collision"); c != nullptr;
           c = c->NextSiblingElement("collision")) {
        DeclaredCollision collision;
        collision.line = c->GetLineNum();
        if (const tinyxml2::XMLElement* g = c->FirstChildElement("geometry")) {
          if (const tinyxml2::XMLElement* shape = g->FirstChildElement())
            collision.geometry = shape->Name();
        }
        link.collisions.push_back(collision);
      }
      declared.link_order.push_back(element_name);
      declared.links.emplace(element_name, std::move(link));
    } else if (tag == "joint" && element_name != nullptr) {
      declared.joints.push_back({element_name, e->GetLineNum()});
    }
  }
  return declared;
}

}  // namespace gjk::robots::detail

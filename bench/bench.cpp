#include "bench.hpp"

#include <cstdio>
#include <map>
#include <tuple>

namespace bench {

Config& config() {
  static Config c;
  return c;
}

const char* to_string(Query q) {
  switch (q) {
    case Query::Distance:
      return "distance";
    case Query::Collide:
      return "collide";
    case Query::Penetration:
      return "penetration";
    case Query::SignedDistance:
      return "signed-distance";
  }
  return "?";
}

AgreementBuilder::AgreementBuilder(std::string section, Query query, std::string cls, int size,
                                   std::string engine, double tolerance) {
  a_.section = std::move(section);
  a_.query = query;
  a_.cls = std::move(cls);
  a_.size = size;
  a_.engine = std::move(engine);
  a_.tolerance = tolerance;
}

std::string hex(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string num(double v, int digits) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::vector<Agreement>& agreement_results() {
  static std::vector<Agreement> rows;
  return rows;
}

namespace {

std::string fmt_error(double e, bool boolean) {
  char buf[64];
  if (boolean) {
    if (e < 0.0) return "-";
    std::snprintf(buf, sizeof buf, "|sd| %.1e", e);
  } else {
    std::snprintf(buf, sizeof buf, "%.1e", e);
  }
  return buf;
}

}  // namespace

void print_agreement(const std::vector<Agreement>& rows, bool verbose) {
  // Summary over sizes: one line per (section, query, engine, class), in first-seen order.
  using Key = std::tuple<std::string, int, std::string, std::string>;
  std::map<Key, std::size_t> index;
  std::vector<Agreement> merged;
  std::vector<int> worst_size;
  for (const Agreement& r : rows) {
    const Key key{r.section, static_cast<int>(r.query), r.engine, r.cls};
    auto it = index.find(key);
    if (it == index.end()) {
      index.emplace(key, merged.size());
      merged.push_back(r);
      worst_size.push_back(r.disagreements > 0 ? r.size : 0);
      continue;
    }
    Agreement& m = merged[it->second];
    m.count += r.count;
    m.exact_known += r.exact_known;
    m.exact_failures += r.exact_failures;
    m.max_exact_error = std::max(m.max_exact_error, r.max_exact_error);
    if (r.disagreements > 0 && (m.disagreements == 0 || r.max_error > m.max_error)) {
      m.worst = r.worst;
      worst_size[it->second] = r.size;
    }
    m.disagreements += r.disagreements;
    m.max_error = std::max(m.max_error, r.max_error);
  }

  std::printf("\n## Agreement with libgjk (all sizes of each data set)\n\n");
  std::printf(
      "| data set | query | engine | class | answers | disagree with libgjk (tol) | max error vs "
      "libgjk | "
      "wrong vs exact / known | max error vs exact |\n");
  std::printf("|---|---|---|---|---:|---:|---:|---:|---:|\n");
  for (const Agreement& m : merged) {
    const bool boolean = m.query == Query::Collide;
    char tol[32];
    if (boolean) {
      std::snprintf(tol, sizeof tol, "bool");
    } else {
      std::snprintf(tol, sizeof tol, "%.0e", m.tolerance);
    }
    char exact[64] = "-";
    char exact_err[32] = "-";
    if (m.exact_known > 0) {
      std::snprintf(exact, sizeof exact, "%d / %d", m.exact_failures, m.exact_known);
      if (!boolean) std::snprintf(exact_err, sizeof exact_err, "%.1e", m.max_exact_error);
    }
    std::printf("| %s | %s | %s | %s | %d | %d (%s) | %s | %s | %s |\n", m.section.c_str(),
                to_string(m.query), m.engine.c_str(), m.cls.c_str(), m.count, m.disagreements, tol,
                m.disagreements == 0 && boolean ? "-" : fmt_error(m.max_error, boolean).c_str(),
                exact, exact_err);
  }

  std::printf(
      "\n### Worst disagreeing pair per row (rebuild with the generator, seed and index)\n\n");
  for (std::size_t i = 0; i < merged.size(); ++i) {
    const Agreement& m = merged[i];
    if (m.disagreements == 0) continue;
    std::printf("- %s %s %s %s (size %d): %s\n", m.section.c_str(), to_string(m.query),
                m.engine.c_str(), m.cls.c_str(), worst_size[i], m.worst.c_str());
  }

  if (!verbose) return;
  std::printf(
      "\n### Per data set\n\n| data set | query | class | size | engine | answers | disagree | max "
      "error | "
      "wrong vs exact | max error vs exact |\n|---|---|---|---:|---|---:|---:|---:|---:|---:|\n");
  for (const Agreement& r : rows) {
    const bool boolean = r.query == Query::Collide;
    std::printf("| %s | %s | %s | %d | %s | %d | %d | %s | %d / %d | %.1e |\n", r.section.c_str(),
                to_string(r.query), r.cls.c_str(), r.size, r.engine.c_str(), r.count,
                r.disagreements,
                r.disagreements == 0 && boolean ? "-" : fmt_error(r.max_error, boolean).c_str(),
                r.exact_failures, r.exact_known, r.max_exact_error);
  }
}

}  // namespace bench

// Reading values out of XLA's backend_config JSON: its configs are flat
// enough (numbers, enum names, a nested object or two) that a search for
// the key serves where a full JSON parser would add nothing.
#ifndef HLO_BACKEND_CONFIG_H_
#define HLO_BACKEND_CONFIG_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace hloc {

// The value at `path` in `config`: each key searched (as "key" followed by
// a colon, spaces allowed) after the previous one's match, the value after
// the last as text without its quotes ("" when a key is absent):
//   BackendConfigValue(R"({"known_trip_count":{"n":"10"}})",
//                      {"known_trip_count", "n"}) == "10"
std::string BackendConfigValue(absl::string_view config,
                               const std::vector<std::string>& path);

}  // namespace hloc

#endif  // HLO_BACKEND_CONFIG_H_

// BackendConfigValue on configs as XLA writes them and spaced out: nested
// keys, quoted and bare values, a key's name appearing as a value first.
#include "hlo/backend_config.h"

#include "gtest/gtest.h"

namespace hloc {
namespace {

TEST(BackendConfigValueTest, ReadsValuesAlongAPath) {
  EXPECT_EQ(BackendConfigValue(R"({"known_trip_count":{"n":"10"}})",
                               {"known_trip_count", "n"}),
            "10");
  EXPECT_EQ(BackendConfigValue(R"({ "known_trip_count" : { "n" : 7 } })",
                               {"known_trip_count", "n"}),
            "7");
  const char conv[] =
      R"({"conv_result_scale":1,"activation_mode":"kNone","side":0.5})";
  EXPECT_EQ(BackendConfigValue(conv, {"conv_result_scale"}), "1");
  EXPECT_EQ(BackendConfigValue(conv, {"activation_mode"}), "kNone");
  EXPECT_EQ(BackendConfigValue(conv, {"side"}), "0.5");
  // "n" as another key's value is not the key.
  EXPECT_EQ(BackendConfigValue(R"({"name":"n","n":3})", {"n"}), "3");
}

TEST(BackendConfigValueTest, AbsentKeysGiveNothing) {
  EXPECT_EQ(BackendConfigValue("", {"n"}), "");
  EXPECT_EQ(BackendConfigValue(R"({"known_trip_count":{}})",
                               {"known_trip_count", "n"}),
            "");
  EXPECT_EQ(BackendConfigValue(R"({"n":1})", {"known_trip_count", "n"}), "");
  EXPECT_EQ(BackendConfigValue("not json", {"n"}), "");
}

}  // namespace
}  // namespace hloc

package main

// testToolsEnv, set in the environment of a test binary (built with -tags
// whaletest), adds its test tools to the catalog.
const testToolsEnv = "WHALE_LS_TEST_TOOLS"

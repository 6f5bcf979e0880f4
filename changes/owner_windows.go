package changes

// processStart is unknown on Windows.
func processStart(int) (uint64, bool) { return 0, false }

// processGone cannot tell on Windows: entries are settled after PendingAge.
func processGone(int, uint64) bool { return false }

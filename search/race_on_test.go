//go:build race

package search

// raceDetector is true in a build with the race detector, whose
// allocations make heap measurements meaningless.
const raceDetector = true

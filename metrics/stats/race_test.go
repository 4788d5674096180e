//go:build race

package stats_test

// raceDetector is true in `go test -race` builds; see skipUnderRace.
const raceDetector = true

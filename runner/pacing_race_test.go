//go:build race

package runner_test

// raceDetector: the race detector slows the server and both clients of a test several times
// over, past what a timing comparison means.
const raceDetector = true

package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Axis tick labels in human units: "2k", "1.5M" msgs/s, "1.5 s", "200 µs", "2 h". Never an
// exponent, never a "-0".

// trim prints x with up to 3 significant digits and no trailing zeros.
func trim(x float64) string {
	if math.Abs(x) < 1e-9 {
		return "0"
	}
	digits := 2 // three significant digits at most, never an exponent
	switch a := math.Abs(x); {
	case a >= 100:
		digits = 0
	case a >= 10:
		digits = 1
	}
	s := strconv.FormatFloat(x, 'f', digits, 64)
	if !strings.Contains(s, ".") {
		return s
	}
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}

// HumanCount is 950, 2k, 1.5M, 3G.
func HumanCount(x float64) string {
	a := math.Abs(x)
	switch {
	case a >= 1e9:
		return trim(x/1e9) + "G"
	case a >= 1e6:
		return trim(x/1e6) + "M"
	case a >= 1e3:
		return trim(x/1e3) + "k"
	}
	return trim(x)
}

// HumanDuration is a duration in seconds as "250 ms", "1.5 s", "2 min", "1.5 h".
func HumanDuration(sec float64) string {
	a := math.Abs(sec)
	switch {
	case a < 1e-9:
		return "0"
	case a < 1e-3:
		return trim(sec*1e6) + " µs"
	case a < 1:
		return trim(sec*1e3) + " ms"
	case a < 120:
		return trim(sec) + " s"
	case a < 7200:
		return trim(sec/60) + " min"
	}
	return trim(sec/3600) + " h"
}

// HumanNanos is a latency in nanoseconds in human units.
func HumanNanos(ns float64) string {
	if math.Abs(ns) < 1000 && ns != 0 {
		return fmt.Sprintf("%s ns", trim(ns))
	}
	return HumanDuration(ns / 1e9)
}

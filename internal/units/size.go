// Package units parses and formats the sizes and counts natsperf reads from flags and prints.
package units

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"
)

// Size suffixes as nats bench reads them: every unit is a power of 1024, so "16kb" is 16384.
var sizeUnits = map[string]int64{
	"": 1, "b": 1,
	"k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
	"m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
	"g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30,
}

// ParseSize reads a byte size such as "128", "128B", "16kb", "16 KiB" or "1.5MB".
func ParseSize(s string) (int64, error) {
	in := strings.ToLower(strings.TrimSpace(s))
	i := 0
	for i < len(in) && (in[i] >= '0' && in[i] <= '9' || in[i] == '.') {
		i++
	}
	num, unit := in[:i], strings.TrimSpace(in[i:])
	mult, ok := sizeUnits[unit]
	if num == "" || !ok {
		return 0, fmt.Errorf("invalid size %q: want a number with an optional unit B, K/KB/KiB, M/MB/MiB or G/GB/GiB", s)
	}
	if !strings.Contains(num, ".") {
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || n > (1<<62)/mult {
			return 0, fmt.Errorf("invalid size %q: number out of range", s)
		}
		return n * mult, nil
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("invalid size %q: number out of range", s)
	}
	return int64(f * float64(mult)), nil
}

// FormatSize prints a byte count the way nats bench does: "16 B", "16 KiB", "1.5 MiB".
func FormatSize(n int64) string {
	if n < 0 {
		n = 0
	}
	return humanize.IBytes(uint64(n))
}

// Comma prints an integer with thousands separators: 1000000 -> "1,000,000".
func Comma(n int64) string { return humanize.Comma(n) }

// Rate prints a per-second byte rate: "75 MiB/sec".
func Rate(bytesPerSec float64) string {
	if bytesPerSec < 0 {
		bytesPerSec = 0
	}
	return humanize.IBytes(uint64(bytesPerSec)) + "/sec"
}

// ParseCount reads a count such as "100000", "100,000", "100k" or "1m" (powers of 1000).
func ParseCount(s string) (int64, error) {
	in := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), ",", ""))
	mult := int64(1)
	switch {
	case strings.HasSuffix(in, "k"):
		mult, in = 1_000, in[:len(in)-1]
	case strings.HasSuffix(in, "m"):
		mult, in = 1_000_000, in[:len(in)-1]
	case strings.HasSuffix(in, "g"), strings.HasSuffix(in, "b"):
		mult, in = 1_000_000_000, in[:len(in)-1]
	}
	n, err := strconv.ParseInt(in, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("invalid count %q: want a whole number such as 100000, 100,000, 100k or 1m", s)
	}
	return n * mult, nil
}

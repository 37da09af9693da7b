package cmdline

import (
	"github.com/natsperf/natsperf/internal/units"
)

// sizeValue is a --size style flag: "16", "16kb", "1.5MiB".
type sizeValue int64

func (s *sizeValue) String() string { return units.FormatSize(int64(*s)) }
func (s *sizeValue) Type() string   { return "size" }
func (s *sizeValue) Set(v string) error {
	n, err := units.ParseSize(v)
	if err != nil {
		return err
	}
	*s = sizeValue(n)
	return nil
}

// countValue is a message count that accepts thousands separators and k/m suffixes:
// "1000000", "1,000,000", "1m".
type countValue int64

func (c *countValue) String() string { return units.Comma(int64(*c)) }
func (c *countValue) Type() string   { return "count" }
func (c *countValue) Set(v string) error {
	n, err := units.ParseCount(v)
	if err != nil {
		return err
	}
	*c = countValue(n)
	return nil
}

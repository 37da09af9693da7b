package units

import (
	"testing"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{"16", 16, false},
		{"128B", 128, false},
		{"16kb", 16384, false},
		{"16KB", 16384, false},
		{"16k", 16384, false},
		{"16 KiB", 16384, false},
		{"1mb", 1 << 20, false},
		{"1.5MiB", 3 << 19, false},
		{"2g", 2 << 30, false},
		{"0", 0, false},
		{"16kq", 0, true},
		{"", 0, true},
		{"kb", 0, true},
		{"-5", 0, true},
		{"1e3", 0, true},
		{"99999999999999999999", 0, true},
		{"9999999999999gb", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSize(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseSize(%q) err = %v, wantErr %v", tt.in, err, tt.wantErr)
			}
			if got != tt.want {
				t.Fatalf("ParseSize(%q) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

func TestFormat(t *testing.T) {
	if got := FormatSize(16384); got != "16 KiB" {
		t.Errorf("FormatSize(16384) = %q", got)
	}
	if got := FormatSize(16); got != "16 B" {
		t.Errorf("FormatSize(16) = %q", got)
	}
	if got := Comma(4925767); got != "4,925,767" {
		t.Errorf("Comma = %q", got)
	}
	if got := Rate(75 * 1024 * 1024); got != "75 MiB/sec" {
		t.Errorf("Rate = %q", got)
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"16", "16kb", "1.5MiB", "16kq", " 3 g ", "."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			if n != 0 {
				t.Fatalf("error with non-zero size %d", n)
			}
			return
		}
		if n < 0 {
			t.Fatalf("ParseSize(%q) = %d, negative", s, n)
		}
	})
}

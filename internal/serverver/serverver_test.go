package serverver

import "testing"

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Version
		bad  bool
	}{
		{in: "2.12.15", want: Version{2, 12, 15}},
		{in: "v2.10.27", want: Version{2, 10, 27}},
		{in: "2.14.0-RC.1", want: Version{2, 14, 0}},
		{in: "2.15.2-dev+abc", want: Version{2, 15, 2}},
		{in: "2.12", want: Version{2, 12, 0}},
		{in: "", bad: true},
		{in: "2", bad: true},
		{in: "2.x.1", bad: true},
		{in: "2.1.2.3", bad: true},
		{in: "2.-1.0", bad: true},
	} {
		got, err := Parse(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("Parse(%q) = %v, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestAtLeast(t *testing.T) {
	for _, tc := range []struct {
		v, o string
		want bool
	}{
		{"2.12.15", "2.12.0", true},
		{"2.12.0", "2.12.0", true},
		{"2.11.17", "2.12.0", false},
		{"2.14.10", "2.12.0", true},
		{"3.0.0", "2.14.0", true},
		{"2.9.99", "2.10.0", false},
		{"2.12.1", "2.12.2", false},
	} {
		v, _ := Parse(tc.v)
		o, _ := Parse(tc.o)
		if got := v.AtLeast(o); got != tc.want {
			t.Errorf("%s.AtLeast(%s) = %v, want %v", tc.v, tc.o, got, tc.want)
		}
	}
}

func TestRefusal(t *testing.T) {
	got := FastBatch.Refusal("js pub fast", "2.12.15")
	want := "js pub fast (fast batch publish, allow_batched) needs nats-server 2.14 or later; the server is 2.12.15"
	if got != want {
		t.Errorf("refusal:\n got %q\nwant %q", got, want)
	}
	for _, have := range []string{"2.14.10", "2.15.3", "2.14.0-RC.1", "unknown", ""} {
		if r := FastBatch.Refusal("js pub fast", have); r != "" {
			t.Errorf("server %q refused: %s", have, r)
		}
	}
	if AtomicBatch.In("2.11.17") || !AtomicBatch.In("2.12.15") || BatchGet.In("2.10.27") || !BatchGet.In("2.11.17") {
		t.Error("In disagrees with the releases that brought the features")
	}
	if FastBatch.In("") || FastBatch.In("unknown") {
		t.Error("a version that cannot be read is known to have fast batches")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"2.12.15", "v2.10.27", "2.14.0-RC.1", "", "1..2", "9999999999999999999.1.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse(s)
		if err != nil {
			return
		}
		if !v.AtLeast(v) {
			t.Errorf("%v is not at least itself", v)
		}
		again, err := Parse(v.String())
		if err != nil || again != v {
			t.Errorf("%q -> %v -> %q -> %v, %v", s, v, v.String(), again, err)
		}
	})
}

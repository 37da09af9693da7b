package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"msgs", "msgs", 0}, {"msg", "msgs", 1}, {"rate", "rtae", 2}, {"kitten", "sitting", 3}, {"", "abc", 3}} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	if got := DidYouMean(nil, "--"); got != "" {
		t.Errorf("none: %q", got)
	}
	names := []string{"msgs", "size"}
	if got := DidYouMean(names, "--"); got != "; did you mean --msgs or --size?" {
		t.Errorf("got %q", got)
	}
	if names[0] != "msgs" {
		t.Errorf("the caller's names were changed: %q", names)
	}
}

package fault

import (
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	tests := []struct {
		spec string
		want Action
		err  string
	}{
		{"4s:kill-leader", Action{At: 4 * time.Second, Kind: KillLeader}, ""},
		{"4s:kill:2", Action{At: 4 * time.Second, Kind: Kill, Node: 2}, ""},
		{"8s:restart", Action{At: 8 * time.Second, Kind: Restart}, ""},
		{"8s:restart:3", Action{At: 8 * time.Second, Kind: Restart, Node: 3}, ""},
		{"5s:pause:2s", Action{At: 5 * time.Second, Kind: Pause, For: 2 * time.Second}, ""},
		{"1.5s:pause:500ms:2", Action{At: 1500 * time.Millisecond, Kind: Pause, For: 500 * time.Millisecond, Node: 2}, ""},
		{"0s:stepdown", Action{Kind: Stepdown}, ""},
		{"4:kill-leader", Action{}, "not a duration"},
		{"-1s:kill-leader", Action{}, "between 0"},
		{"4s", Action{}, "want AT:ACTION"},
		{"4s:explode", Action{}, "unknown action"},
		{"4s:kill", Action{}, "AT:kill:NODE"},
		{"4s:kill:0", Action{}, "number from 1"},
		{"4s:kill:x", Action{}, "number from 1"},
		{"4s:pause", Action{}, "AT:pause:DURATION"},
		{"4s:pause:0s", Action{}, "positive duration"},
		{"4s:stepdown:1", Action{}, "no argument"},
		{"48h:stepdown", Action{}, "between 0"},
		{"4s:power-fail:all", Action{At: 4 * time.Second, Kind: PowerFail, Who: All}, ""},
		{"4s:power-fail:leader", Action{At: 4 * time.Second, Kind: PowerFail, Who: Leader}, ""},
		{"4s:power-fail:minority", Action{At: 4 * time.Second, Kind: PowerFail, Who: Minority}, ""},
		{"4s:power-fail:2", Action{At: 4 * time.Second, Kind: PowerFail, Node: 2}, ""},
		{"4s:power-fail", Action{}, "AT:power-fail:all|leader|minority|NODE"},
		{"4s:power-fail:most", Action{}, "all, leader or minority"},
		{"5s:corrupt:3", Action{At: 5 * time.Second, Kind: Corrupt, Node: 3}, ""},
		{"5s:corrupt", Action{}, "AT:corrupt:NODE"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			got, err := Parse(tt.spec)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Parse(%q) error = %v, want it to contain %q", tt.spec, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Parse(%q) = %+v, %v; want %+v", tt.spec, got, err, tt.want)
			}
			if back, err := Parse(got.String()); err != nil || back != got {
				t.Fatalf("round trip %q -> %q -> %+v, %v", tt.spec, got.String(), back, err)
			}
		})
	}
}

func TestParseExec(t *testing.T) {
	a, err := ParseExec("5s:kubectl delete pod nats-1 --grace-period=0")
	if err != nil || a.At != 5*time.Second || a.Cmd != "kubectl delete pod nats-1 --grace-period=0" || a.Kind != Exec {
		t.Fatalf("ParseExec = %+v, %v", a, err)
	}
	for _, bad := range []string{"5s", "5s:", "5s:  ", "x:ls"} {
		if _, err := ParseExec(bad); err == nil {
			t.Errorf("ParseExec(%q): no error", bad)
		}
	}
}

func TestParseAllSortsAndValidates(t *testing.T) {
	p, err := ParseAll([]string{"8s:restart", "2s:kill-leader"}, []string{"5s:echo hi"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range p {
		got = append(got, a.String())
	}
	if strings.Join(got, " ") != "2s:kill-leader 5s:echo hi 8s:restart" {
		t.Fatalf("order: %v", got)
	}
	if _, err := ParseAll([]string{"bad", "2s:nope"}, nil); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("want both errors, got %v", err)
	}
	tests := []struct {
		name             string
		plan             []string
		nodes            int
		stream, pausable bool
		err              string
	}{
		{"external kill", []string{"1s:kill:1"}, 0, true, false, "needs the embedded server"},
		{"external stepdown", []string{"1s:stepdown"}, 0, true, false, ""},
		{"core kill-leader", []string{"1s:kill-leader"}, 3, false, false, "needs a JetStream stream"},
		{"node out of range", []string{"1s:kill:4"}, 3, true, false, "does not exist"},
		{"pause not pausable", []string{"1s:pause:1s:1"}, 3, true, false, "not started pausable"},
		{"pause ok", []string{"1s:pause:1s"}, 3, true, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParseAll(tt.plan, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = p.Validate(tt.nodes, tt.stream, tt.pausable)
			if (tt.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("Validate = %v, want %q", err, tt.err)
			}
		})
	}
}

// FuzzParse: any input either fails cleanly or parses to an action that prints back to itself.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"4s:kill-leader", "4s:kill:2", "8s:restart", "5s:pause:2s", "5s:pause:2s:3", "1s:stepdown", "::", "1h:kill:99", "4s:power-fail:all", "4s:power-fail:3", "5s:corrupt:2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		a, err := Parse(spec)
		if err != nil {
			return
		}
		if a.At < 0 || a.At > MaxAt || a.Node < 0 || (a.Kind == Pause && a.For <= 0) {
			t.Fatalf("Parse(%q) accepted %+v", spec, a)
		}
		back, err := Parse(a.String())
		if err != nil || back != a {
			t.Fatalf("Parse(%q) = %+v, String %q parses to %+v, %v", spec, a, a.String(), back, err)
		}
	})
}

package report

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/natsperf/natsperf/internal/connect"
)

// Field is one line of the report's header: what was run, where, when, with what.
type Field struct{ Name, Value string }

// Header is the run's context: scenario, date, versions, target (credentials redacted), host,
// the matrix axes and fixed settings, repetitions and failed runs.
func Header(s *Set) []Field {
	var out []Field
	add := func(name, value string) {
		if value != "" {
			out = append(out, Field{name, value})
		}
	}
	add("scenario", strings.TrimSpace(s.Scenario+" "+parens(s.File)))
	add("description", s.Description)
	var start, end time.Time
	tools, servers, targets, hosts, networks := set{}, set{}, set{}, set{}, set{}
	reps := 0
	for _, c := range s.Cells {
		reps = max(reps, len(c.Runs))
		for _, r := range c.Runs {
			res := r.Result
			if !res.Start.IsZero() && (start.IsZero() || res.Start.Before(start)) {
				start = res.Start
			}
			if res.End.After(end) {
				end = res.End
			}
			if res.Tool.Version != "" {
				tools.add(res.Tool.Version)
			}
			embedded := 0
			for _, sv := range res.Servers {
				if sv.Version != "" {
					servers.add(sv.Version)
				}
				if sv.Embedded {
					embedded++
				}
			}
			if res.Network != nil { // the cluster natsperf ran, not only the servers its clients met
				embedded = res.Network.Nodes
				if c := res.Network.Conditions(); c != "" {
					networks.add(c)
				}
			}
			if embedded > 0 {
				targets.add(fmt.Sprintf("embedded %d-node", embedded))
			} else if t := target(res.Settings); t != "" {
				targets.add(t)
			}
			if h := res.Host; h.OS != "" {
				name := h.Hostname
				if name == "" {
					name = "host"
				}
				hosts.add(fmt.Sprintf("%s (%s/%s, %d CPUs, %s)", name, h.OS, h.Arch, h.CPUs, h.Go))
			}
		}
	}
	if !start.IsZero() {
		add("date", start.UTC().Format("2006-01-02 15:04")+" to "+end.UTC().Format("2006-01-02 15:04 UTC"))
	}
	add("natsperf", tools.String())
	add("server", servers.String())
	add("target", targets.String())
	add("network", networks.String())
	add("host", hosts.String())
	levels := AxisLevels(s)
	var axes []string
	for _, a := range s.Axes {
		axes = append(axes, a+": "+strings.Join(levels[a], ", "))
	}
	add("matrix", strings.Join(axes, " · "))
	var fixed []string
	for k, v := range s.Vars {
		fixed = append(fixed, k+"="+v)
	}
	sort.Strings(fixed)
	add("fixed", strings.Join(fixed, " · "))
	runs, failed := 0, 0
	for _, c := range s.Cells {
		runs += len(c.Runs)
		failed += len(c.FailedRuns())
	}
	add("runs", fmt.Sprintf("%d cells x up to %d repetitions = %d runs, %d failed", len(s.Cells), reps, runs, failed))
	return out
}

func parens(s string) string {
	if s == "" {
		return ""
	}
	return "(" + s + ")"
}

// target is the servers a run connected to, credentials redacted.
func target(settings json.RawMessage) string {
	var st struct {
		Connection connect.Settings `json:"connection"`
	}
	if json.Unmarshal(settings, &st) != nil {
		return ""
	}
	c := st.Connection.Redacted()
	switch {
	case c.Servers != "":
		return c.Servers
	case c.Context != "":
		return "context " + c.Context
	}
	return ""
}

// set keeps distinct strings in the order first seen.
type set map[string]int

func (s set) add(v string) {
	if _, ok := s[v]; !ok {
		s[v] = len(s)
	}
}

func (s set) String() string {
	out := make([]string, len(s))
	for v, i := range s {
		out[i] = v
	}
	return strings.Join(out, ", ")
}

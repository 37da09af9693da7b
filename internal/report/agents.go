package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/natsperf/natsperf/internal/units"
)

// AgentTable is a cell's per-agent breakdown for runs across natsperf agents (--agents): each
// agent's clients and messages per group, its clock offset and start; nil when no run of the
// cell was distributed.
func AgentTable(c *Cell) *Table {
	t := &Table{Title: c.Name + ": per agent", Class: "agents", Head: []string{"run", "agent", "host", "part", "clients", "msgs", "clock offset", "started after T", "state"}}
	for _, r := range c.Runs {
		d := r.Result.Distributed
		if d == nil {
			continue
		}
		for _, a := range d.Agents {
			clients := 0
			msgs := map[string]int64{}
			for _, g := range r.Result.Groups {
				for _, cl := range g.Clients {
					if cl.Part == a.Name || strings.HasPrefix(cl.Part, a.Name+"-"+a.ID) {
						clients++
						msgs[g.Name] += cl.Msgs
					}
				}
			}
			names := make([]string, 0, len(msgs))
			for n := range msgs {
				names = append(names, n)
			}
			sort.Strings(names)
			var per []string
			for _, n := range names {
				per = append(per, n+" "+units.Comma(msgs[n]))
			}
			state := "ok"
			switch {
			case a.Lost:
				state = "lost: " + a.Error
			case a.Error != "":
				state = "failed: " + a.Error
			}
			started := ""
			if !a.Lost && a.Error == "" {
				started = fmt.Sprintf("%+.3f ms", float64(a.StartOffsetNS)/1e6)
			}
			t.Rows = append(t.Rows, []string{
				fmt.Sprint(r.Repetition), a.Name, a.Host, fmt.Sprintf("%d/%d", a.Part, a.Parts), fmt.Sprint(clients), strings.Join(per, ", "),
				fmt.Sprintf("%+.3f ± %.3f ms", float64(a.ClockOffsetNS)/1e6, float64(a.ClockUncertaintyNS)/1e6), started, state,
			})
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}

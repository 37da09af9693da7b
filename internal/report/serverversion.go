package report

import (
	"maps"
	"slices"
	"strings"

	"github.com/natsperf/natsperf/result"
)

// ServerAxis is the value a run's cell gains when its servers' version differs from the
// version of the runs already in the cell: results of different nats-server versions are
// never one cell (an upgrade check compares them, it does not average them).
const ServerAxis = "server"

// ServerVersions are the versions of a Result's servers, sorted and joined with "+" ("" when
// it names none).
func ServerVersions(res *result.Result) string {
	var vs []string
	for _, s := range res.Servers {
		if v := s.Version; v != "" && !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	slices.Sort(vs)
	return strings.Join(vs, "+")
}

// apartByServer renames r's cell ("NAME server=VERSION") when the cell of that name already
// holds runs of other server versions.
func apartByServer(r Entry, at map[string]*Cell) Entry {
	c := at[r.Cell]
	if c == nil || len(c.Runs) == 0 || r.Result == nil {
		return r
	}
	v := ServerVersions(r.Result)
	if v == ServerVersions(c.Runs[0].Result) {
		return r
	}
	values := make(map[string]string, len(r.Values)+1)
	maps.Copy(values, r.Values)
	values[ServerAxis] = v
	r.Values = values
	r.Cell += " " + ServerAxis + "=" + v
	return r
}

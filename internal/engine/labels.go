package engine

import "encoding/json"

// Label is a Result's settings (a JSON object, or nothing) with labels' entries added, each
// replacing the entry of its name (runner.Options.Settings: a scenario cell's "scenario").
// The other entries keep their bytes, numbers beyond float64's precision (seeds) included.
func Label(settings json.RawMessage, labels map[string]any) json.RawMessage {
	if len(labels) == 0 {
		return settings
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(settings, &m) != nil || m == nil {
		m = map[string]json.RawMessage{}
	}
	for k, v := range labels {
		b, err := json.Marshal(v)
		if err != nil {
			b, _ = json.Marshal(err.Error()) // the label says why it is not there
		}
		m[k] = b
	}
	out, _ := json.Marshal(m)
	return out
}

// labelled is a plan's settings echo with labels added (Label).
func labelled(echo any, labels map[string]any) any {
	b, err := json.Marshal(echo)
	if err != nil {
		return echo
	}
	return Label(b, labels)
}

package result

import (
	"bytes"
	"strings"
	"testing"
)

// TestReadAcceptsV1: natsperf.result/v2 only renamed the core workloads' settings keys to
// snake_case, so a v1 document still reads, with every figure; another schema does not.
func TestReadAcceptsV1(t *testing.T) {
	if Schema != "natsperf.result/v2" {
		t.Fatalf("Schema %q: the settings keys changed style, which is v2", Schema)
	}
	v1 := `{"schema":"natsperf.result/v1","command":"pub",
		"settings":{"workload":{"Subject":"foo","Size":128,"MultiSubject":false,"IDs":4390912}},
		"stop":{"reason":"completed"},
		"groups":[{"name":"pub","kind":"Core NATS publisher","expected":10,"clients":[{"id":1,"expected":10,"msgs":10,"bytes":1280,"msgs_per_sec":5,"bytes_per_sec":640}],
			"aggregate":{"msgs":10,"bytes":1280,"msgs_per_sec":5,"bytes_per_sec":640,"rates":{"min":5,"avg":5,"max":5,"stddev":0},"time_per_msg":{"min":1,"avg":1,"max":1,"stddev":0}}}]}`
	res, err := Read(strings.NewReader(v1))
	if err != nil {
		t.Fatalf("v1 document: %v", err)
	}
	if res.Schema != SchemaV1 || len(res.Groups) != 1 || res.Groups[0].Aggregate.Msgs != 10 || !strings.Contains(string(res.Settings), `"Subject":"foo"`) {
		t.Fatalf("v1 read as %+v", res)
	}
	var b bytes.Buffer
	if err := Write(&b, &Result{Schema: Schema}); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(&b); err != nil {
		t.Fatalf("v2 document: %v", err)
	}
	if _, err := Read(strings.NewReader(`{"schema":"natsperf.result/v9"}`)); err == nil || !strings.Contains(err.Error(), "natsperf.result/v9") {
		t.Fatalf("a v9 document: err %v, want a refusal naming its schema", err)
	}
}

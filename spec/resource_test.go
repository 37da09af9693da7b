package spec

import (
	"reflect"
	"testing"
)

// TestSetupItems: a setup is its items, streams then buckets, each in its list's order;
// Made and Afresh act on the setup they came from and not on a Clone's source; Join adds
// what is not listed yet; KindOfStream names a bucket's stream as the bucket.
func TestSetupItems(t *testing.T) {
	s := Setup{Streams: []Stream{{Name: "a", Subjects: []string{"a.>"}}, {Name: "b", Replicas: 3}}, Buckets: []Bucket{{Name: "k"}}}
	var got []string
	for _, it := range s.Items() {
		got = append(got, it.Kind()+" "+it.ID()+" "+it.Backing())
	}
	if want := []string{"stream a a", "stream b b", "KV bucket k KV_k"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("items %q, want %q", got, want)
	}
	c := s.Clone()
	for _, it := range c.Items() {
		it.Afresh(false)
	}
	if s.Streams[0].Recreate || s.Buckets[0].Create {
		t.Fatalf("Afresh on a clone changed the original: %+v", s)
	}
	if st, b := c.Streams[0], c.Buckets[0]; !st.Create || !st.Recreate || !st.DeleteAfter || st.Replicas != 1 || !b.Create || !b.DeleteAfter {
		t.Fatalf("afresh: stream %+v, bucket %+v", st, b)
	}
	for _, it := range c.Items() {
		if !it.Wanted() {
			t.Errorf("%s %s made afresh is not wanted", it.Kind(), it.ID())
		}
		it.Made()
		if it.Wanted() {
			t.Errorf("%s %s made is still wanted", it.Kind(), it.ID())
		}
	}
	if c.Streams[1].Replicated() != 3 || c.Streams[0].DeleteAfter || c.Buckets[0].DeleteAfter {
		t.Fatalf("made: %+v", c)
	}
	c.Join(Setup{Streams: []Stream{{Name: "b"}, {Name: "own"}}, Buckets: []Bucket{{Name: "k2"}}})
	if len(c.Streams) != 3 || c.Streams[2].Name != "own" || c.Streams[1].Replicas != 3 || len(c.Buckets) != 2 {
		t.Fatalf("joined: %+v", c)
	}
	for stream, want := range map[string][2]string{"KV_orders": {"KV bucket", "orders"}, "orders": {"stream", "orders"}, "KVX": {"stream", "KVX"}} {
		if k, n := KindOfStream(stream); k != want[0] || n != want[1] {
			t.Errorf("KindOfStream(%q) = %q %q, want %q", stream, k, n, want)
		}
	}
}

// TestCheckSetupAll: CheckSetup reports one problem per item, all of them, each at its path;
// Validate reports the first.
func TestCheckSetupAll(t *testing.T) {
	s := Setup{
		Streams: []Stream{{Name: "a.b"}, {Name: "ok", Subjects: []string{"x.>.y"}}, {Name: "ok"}},
		Buckets: []Bucket{{Name: "bad name!"}, {Name: "b", History: 65}},
	}
	var got []string
	for _, e := range CheckSetup(&s) {
		got = append(got, e.Path)
	}
	want := []string{"setup.streams[0].name", "setup.streams[1].subjects[0]", "setup.streams[2].name", "setup.buckets[0].name", "setup.buckets[1].history"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("problems at %q, want %q", got, want)
	}
	err := (&Spec{Version: Version, Setup: s, Workloads: []Workload{{Config: &Pub{Subject: "x"}}}}).Validate()
	if err == nil || err.Error() != `setup.streams[0].name: "a.b" may not contain spaces, '.', '*', '>', '/' or '\'` {
		t.Fatalf("Validate: %v", err)
	}
}

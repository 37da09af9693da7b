package spec

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
)

// Item is one resource of a Spec's setup: a *Stream or a *Bucket. Setup's fields are lists
// of items, each field of one kind, and everything that walks a setup does it through this
// interface (Setup.Items): validation here, making and undoing them (internal/engine),
// the parts of a distributed run taking them as made (Made), a scenario's setup asking for
// them afresh (Afresh), natsperf clean telling them apart (KindOfStream). A new kind of
// resource (an object store) is its type with these methods, a field of Setup, and how the
// engine makes it.
type Item interface {
	// Kind names it in messages and in natsperf clean's list: "stream", "KV bucket".
	Kind() string
	// ID is its name.
	ID() string
	// Backing is the JetStream stream that holds it: a stream's own name, a bucket's KV_NAME.
	// The zero item's Backing is the prefix by which natsperf clean knows the kind.
	Backing() string
	// Wanted says this run makes it (a stream to recreate, a bucket to create).
	Wanted() bool
	// Replicated is the replicas it asks of the cluster (1 at least).
	Replicated() int
	// Made marks it made already: the parts of a distributed run use it as it is, and
	// delete nothing.
	Made()
	// Afresh asks this run to make it afresh (a scenario's setup) and, unless keep, to delete
	// it after.
	Afresh(keep bool)
	// check validates it; path is its place in the Spec ("setup.streams[0]").
	check(c *checker, path string)
}

// Items are s's resources in the order they are made: Setup's fields in order (streams,
// then buckets), each list in its order. They point into s: Made and Afresh change s.
func (s *Setup) Items() []Item {
	var out []Item
	forLists(reflect.ValueOf(s).Elem(), func(_ string, list reflect.Value) {
		for i := range list.Len() {
			out = append(out, list.Index(i).Addr().Interface().(Item))
		}
	})
	return out
}

// Clone is s with lists of its own, so Made or Afresh on the copy leave s as it is.
func (s Setup) Clone() Setup {
	c := s
	forLists(reflect.ValueOf(&c).Elem(), func(_ string, list reflect.Value) {
		if !list.IsNil() {
			list.Set(reflect.AppendSlice(reflect.MakeSlice(list.Type(), 0, list.Len()), list))
		}
	})
	return c
}

// Join adds o's items that s does not list yet (by name, in each kind's list), in o's order.
func (s *Setup) Join(o Setup) {
	from := reflect.ValueOf(&o).Elem()
	field := 0
	forLists(reflect.ValueOf(s).Elem(), func(_ string, list reflect.Value) {
		add := from.Field(field)
		field++
		for j := range add.Len() {
			if id := add.Index(j).Addr().Interface().(Item).ID(); !listed(list, id) {
				list.Set(reflect.Append(list, add.Index(j)))
			}
		}
	})
}

// listed reports whether a list of items holds one named id.
func listed(list reflect.Value, id string) bool {
	for i := range list.Len() {
		if list.Index(i).Addr().Interface().(Item).ID() == id {
			return true
		}
	}
	return false
}

// forLists calls f with each of Setup's lists (v is a Setup) and its JSON key.
func forLists(v reflect.Value, f func(key string, list reflect.Value)) {
	for i := range v.NumField() {
		key, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		f(key, v.Field(i))
	}
}

// KindOfStream tells which kind of setup item a JetStream stream holds and the item's name:
// "KV bucket", "orders" for KV_orders; a stream of no other kind is a "stream".
func KindOfStream(stream string) (kind, name string) {
	kind, name = "stream", stream
	best := 0
	for _, t := range itemTypes() {
		zero := reflect.New(t).Interface().(Item)
		if p := zero.Backing(); len(p) > best && strings.HasPrefix(stream, p) {
			kind, name, best = zero.Kind(), strings.TrimPrefix(stream, p), len(p)
		}
	}
	return kind, name
}

// itemTypes are the item types Setup lists.
func itemTypes() []reflect.Type {
	var out []reflect.Type
	t := reflect.TypeFor[Setup]()
	for i := range t.NumField() {
		out = append(out, t.Field(i).Type.Elem())
	}
	return out
}

// FieldError is a Spec's problem at one field: its path ("setup.streams[0].storage") and what
// is wrong there.
type FieldError struct {
	Path, Msg string
}

func (e *FieldError) Error() string { return e.Path + ": " + e.Msg }

// CheckSetup validates each of s's items on its own (what Validate does for the setup, but
// one problem per item instead of the first of all), and that no name is listed twice in a
// kind. A scenario reports them all at once.
func CheckSetup(s *Setup) []*FieldError {
	var out []*FieldError
	seen := map[string]bool{}
	forLists(reflect.ValueOf(s).Elem(), func(key string, list reflect.Value) {
		for j := range list.Len() {
			it := list.Index(j).Addr().Interface().(Item)
			path := fmt.Sprintf("setup.%s[%d]", key, j)
			c := &checker{}
			it.check(c, path)
			if id := it.Kind() + "\x00" + it.ID(); seen[id] {
				c.failf(path+".name", "%s %q is listed twice", kindWord(it), it.ID())
			}
			seen[it.Kind()+"\x00"+it.ID()] = true
			if fe, ok := c.err.(*FieldError); ok {
				out = append(out, fe)
			}
		}
	})
	return out
}

// kindWord is the item's kind as the duplicate message has always said it.
func kindWord(it Item) string {
	k := it.Kind()
	return k[strings.LastIndex(k, " ")+1:]
}

// Kind, ID, Backing, Wanted, Replicated, Made and Afresh make a Stream a setup Item: a stream
// is made when it is to be recreated (a scenario's), and backed by itself.
func (st *Stream) Kind() string    { return "stream" }
func (st *Stream) ID() string      { return st.Name }
func (st *Stream) Backing() string { return st.Name }
func (st *Stream) Wanted() bool    { return st.Recreate }
func (st *Stream) Replicated() int { return max(st.Replicas, 1) }
func (st *Stream) Made()           { st.Recreate, st.DeleteAfter = false, false }
func (st *Stream) Afresh(keep bool) {
	st.Create, st.Recreate, st.DeleteAfter, st.Replicas = true, true, !keep, max(st.Replicas, 1)
}

// Kind, ID, Backing, Wanted, Replicated, Made and Afresh make a Bucket a setup Item: a bucket
// is made when it is to be created, and backed by the stream KV_NAME.
func (b *Bucket) Kind() string    { return "KV bucket" }
func (b *Bucket) ID() string      { return b.Name }
func (b *Bucket) Backing() string { return "KV_" + b.Name }
func (b *Bucket) Wanted() bool    { return b.Create }
func (b *Bucket) Replicated() int { return max(b.Replicas, 1) }
func (b *Bucket) Made()           { b.Create, b.DeleteAfter = false, false }
func (b *Bucket) Afresh(keep bool) {
	b.Create, b.DeleteAfter, b.Replicas = true, !keep, max(b.Replicas, 1)
}

func (st *Stream) check(c *checker, p string) {
	checkName(c, p+".name", st.Name)
	checkStorage(c, p+".storage", st.Storage)
	checkReplicas(c, p+".replicas", st.Replicas)
	if st.MaxBytes != nil && *st.MaxBytes < 0 {
		c.failf(p+".max_bytes", "must not be negative (0: unlimited)")
	}
	if st.DedupWindow != nil && *st.DedupWindow < 0 {
		c.failf(p+".dedup_window", "must not be negative")
	}
	checkCompression(c, p+".compression", st.Compression)
	if st.PersistAsync && (st.Replicas > 1 || st.Storage == "memory") {
		c.failf(p+".persist_async", "needs file storage and replicas 1")
	}
	if st.Recreate && len(st.Subjects) == 0 {
		c.failf(p+".subjects", "a stream needs subjects")
	}
	for j, sub := range st.Subjects {
		if !validSubject(sub) {
			c.failf(fmt.Sprintf("%s.subjects[%d]", p, j), "%q is not a valid NATS subject", sub)
		}
	}
}

func (b *Bucket) check(c *checker, p string) {
	if b.Name == "" {
		c.failf(p+".name", "must not be empty")
	} else if !bucketName.MatchString(b.Name) || len(b.Name) > maxNameLen-3 {
		c.failf(p+".name", "%q: bucket names are letters, digits, '-' and '_' (at most %d)", b.Name, maxNameLen-3)
	}
	checkStorage(c, p+".storage", b.Storage)
	checkReplicas(c, p+".replicas", b.Replicas)
	checkCompression(c, p+".compression", b.Compression)
	if b.History < 0 || b.History > 64 {
		c.failf(p+".history", "must be 1 to 64, got %d", b.History)
	}
	if b.MaxBytes < 0 {
		c.failf(p+".max_bytes", "must not be negative (0: unlimited)")
	}
}

// maxNameLen is nats-server's longest stream name (server.JSMaxNameLen); a bucket's stream
// adds "KV_".
const maxNameLen = 255

// bucketName is nats.go's rule for KV bucket names (not exported there).
var bucketName = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// validSubject is nats-server's rule for a subject a stream takes: dot-separated tokens, none
// empty or holding white space, '*' and '>' only as whole tokens, '>' only last.
func validSubject(s string) bool {
	if s == "" {
		return false
	}
	tokens := strings.Split(s, ".")
	for i, t := range tokens {
		switch {
		case t == "" || strings.ContainsAny(t, " \t\r\n\f"):
			return false
		case t == ">" && i != len(tokens)-1:
			return false
		}
	}
	return true
}

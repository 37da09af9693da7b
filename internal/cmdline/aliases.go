package cmdline

import "github.com/spf13/pflag"

// aliasFlag adds alias, a hidden second name for the flag name of f: setting it sets name (so
// Changed(name) holds), and help keeps one entry. --batch means four different things across
// the commands (README, "Flags with more than one meaning"): each meaning gets a name of its
// own while nats bench's --batch keeps working.
func aliasFlag(f *pflag.FlagSet, alias, name string) {
	orig := f.Lookup(name)
	f.AddFlag(&pflag.Flag{
		Name: alias, Usage: "the same as --" + name, DefValue: orig.DefValue, Hidden: true,
		Value: aliasValue{Value: orig.Value, set: func(s string) error { return f.Set(name, s) }},
	})
}

// aliasValue prints and types as the flag it stands for and sets it by its own name.
type aliasValue struct {
	pflag.Value
	set func(string) error
}

func (v aliasValue) Set(s string) error { return v.set(s) }

// AliasFlag adds alias to f as a hidden second name of the flag name (nats bench's spellings).
func AliasFlag(f *pflag.FlagSet, alias, name string) { aliasFlag(f, alias, name) }

// IsAlias reports whether v is the value of an alias AliasFlag added.
func IsAlias(v pflag.Value) bool {
	_, ok := v.(aliasValue)
	return ok
}

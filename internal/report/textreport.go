package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// TextReport writes the report (Build) as plain text for a terminal.
func TextReport(w io.Writer, s *Set, title string) error {
	d, err := Build(s, title)
	if err != nil {
		return err
	}
	return d.WriteText(w)
}

// WriteText writes the document as plain text: titles underlined, tables in aligned columns,
// blocks separated by blank lines; charts are left out, as in the Markdown.
func (d *Document) WriteText(w io.Writer) error {
	var b strings.Builder
	block := func(format string, args ...any) {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, format, args...)
	}
	heading := func(title, rule string) {
		block("%s\n%s\n", title, strings.Repeat(rule, utf8.RuneCountInString(title)))
	}
	heading(d.Title, "=")
	block("")
	for _, f := range d.Header {
		fmt.Fprintf(&b, "%s: %s\n", f.Name, f.Value)
	}
	for _, sec := range d.Sections {
		if sec.chartsOnly() {
			continue
		}
		heading(sec.Title, "-")
		for _, p := range sec.Intro {
			block("%s\n", p.Text)
		}
		if len(sec.List.Items) > 0 {
			block("")
			for _, it := range sec.List.Items {
				b.WriteString("- " + it.Text + "\n")
			}
		}
		for _, t := range sec.Tables {
			block("")
			if t.Title != "" {
				b.WriteString(t.Title + "\n")
			}
			tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
			for _, r := range append([][]string{t.Head}, t.Rows...) {
				fmt.Fprintln(tw, strings.Join(r, "\t"))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

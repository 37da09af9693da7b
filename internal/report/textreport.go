package report

import (
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

// WriteText writes the document as plain text: the title and the sections' titles
// underlined, tables in aligned columns; charts are left out, as in the Markdown.
func (d *Document) WriteText(w io.Writer) error {
	return d.writeProse(w, prose{
		heading: func(level int, title string) string {
			rule := map[int]string{1: "=", 2: "-"}[level]
			if rule == "" {
				return title + "\n"
			}
			return title + "\n" + strings.Repeat(rule, utf8.RuneCountInString(title)) + "\n"
		},
		field: func(f Field) string { return f.Name + ": " + f.Value + "\n" },
		table: func(b *strings.Builder, t Table) {
			tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
			for _, r := range append([][]string{t.Head}, t.Rows...) {
				io.WriteString(tw, strings.Join(r, "\t")+"\n")
			}
			_ = tw.Flush() // into a strings.Builder: cannot fail
		},
	})
}

// prose is how a format without charts writes a document (Markdown, text): blocks separated
// by blank lines, the formats differing in their headings (level 1 to 3), the header's lines
// and tables.
type prose struct {
	heading func(level int, title string) string
	field   func(f Field) string
	table   func(b *strings.Builder, t Table)
}

func (d *Document) writeProse(w io.Writer, p prose) error {
	var b strings.Builder
	block := func(s string) {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(s)
	}
	block(p.heading(1, d.Title))
	block("")
	for _, f := range d.Header {
		b.WriteString(p.field(f))
	}
	for _, sec := range d.Sections {
		if sec.chartsOnly() {
			continue
		}
		block(p.heading(2, sec.Title))
		for _, para := range sec.Intro {
			block(para.Text + "\n")
		}
		if len(sec.List.Items) > 0 {
			block("")
			for _, it := range sec.List.Items {
				b.WriteString("- " + it.Text + "\n")
			}
		}
		for _, t := range sec.Tables {
			if t.Title != "" {
				block(p.heading(3, t.Title))
			}
			block("")
			p.table(&b, t)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

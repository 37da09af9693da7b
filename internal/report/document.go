package report

import "strings"

// A scenario report is data: a Document of Sections built once from the runs (Build), which
// the Markdown, the HTML page and the text each draw the same way (WriteMarkdown, WriteHTML,
// WriteText). A new section is one function in sections.go, listed in Build.

// Document is a report: its title, the run's context, then its sections in order.
type Document struct {
	Title    string
	Header   []Field
	Sections []Section
}

// Section is one part of a report, drawn in this order: its title, its intro paragraphs, its
// list, its charts (the HTML page only) and its tables (a table's Title, when set, heads it).
// A section without list and tables is its charts: Markdown and text, which draw no charts,
// leave it out, intro included.
type Section struct {
	Title  string
	Intro  []Para
	List   List
	Charts []Chart
	Tables []Table
}

// Para is a paragraph in Markdown's inline syntax, of which only `code` is used: Markdown and
// text print it as it is, the page escapes it and sets `code` in <code>.
type Para struct {
	Text string
	// Page is the HTML page's wording where it differs from Text ("" is Text): kept so the
	// page read as it did before sections were data.
	Page string
}

// List is a bulleted list; Class is the HTML list's class.
type List struct {
	Class string
	Items []Item
}

// Item is one point of a List, in the same inline syntax as Para; Class is the HTML item's.
type Item struct{ Text, Class string }

// Chart is a figure the HTML page draws as inline SVG (svg.go has the kinds).
type Chart interface{ svg(b *strings.Builder) }

// chartsOnly: the section is drawn only where charts are.
func (s Section) chartsOnly() bool { return len(s.List.Items) == 0 && len(s.Tables) == 0 }

// Build makes the report of a Set: its header, then every section that has something to
// show, in the order the formats draw them.
func Build(s *Set, title string) (*Document, error) {
	if title == "" {
		title = "natsperf report"
	}
	stab, err := Stabilities(s)
	if err != nil {
		return nil, err
	}
	d := &Document{Title: title, Header: Header(s)}
	add := func(secs ...*Section) {
		for _, sec := range secs {
			if sec != nil {
				d.Sections = append(d.Sections, *sec)
			}
		}
	}
	metrics := Metrics(s)
	add(inadequacySection(s), failedSection(s), effectsSection(s), cellsSection(s, metrics), durabilitySection(s), storageSection(s),
		comparedSection(s, metrics), throughputSection(s), spectrumSection(s), failoverSection(s))
	for _, st := range stab {
		add(stabilitySection(st))
	}
	add(cellTablesSection(s, "Per instance", InstanceTable), cellTablesSection(s, "Per agent", AgentTable),
		notesSection(s))
	return d, nil
}

//! One table value, several encodings: every bench presenter (the run
//! report, `compare`, the ablation report, the RFC 2544 tables) builds a
//! [`Table`] (and, for a whole page, a [`Doc`] of headings, paragraphs,
//! lists and tables) and hands it to a writer: [`Table::to_markdown`]
//! (GitHub-flavoured Markdown pipe table), [`Table::to_csv`] (RFC 4180:
//! comma-separated, a field with a comma, quote or line break quoted and
//! its quotes doubled, `\n` line ends) or [`Table::to_html`]. The writers
//! encode; they compute nothing: derived figures (ratios, % of line rate,
//! payload Mbit/s, worst loss) come from [`crate::records`] and the
//! presenters' analyses.
//!
//! Emphasis is a value, not markup in a string: [`Span::Strong`] is
//! `**x**` in Markdown and `<strong>x</strong>` in HTML, [`Span::Code`]
//! `` `x` `` and `<code>x</code>`, [`Span::Em`] `*x*` and `<em>x</em>`; CSV
//! writes the bare text.

use std::fmt::Write as _;

/// Horizontal alignment of a column (Markdown `---` or `---:`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Text: left.
    Left,
    /// Numbers: right.
    Right,
}

/// A column: its title and alignment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// Header text.
    pub title: String,
    /// Alignment.
    pub align: Align,
}

/// A run of text with one emphasis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Span {
    /// Plain text.
    Text(String),
    /// Code or a file name.
    Code(String),
    /// Strong emphasis (a verdict).
    Strong(String),
    /// Emphasis.
    Em(String),
}

/// Inline text: the content of a table cell, a paragraph, a heading or a
/// list item.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Inline(pub Vec<Span>);

impl Inline {
    /// Plain text.
    pub fn text(s: impl Into<String>) -> Self {
        Inline(vec![Span::Text(s.into())])
    }
    /// Appends plain text.
    #[must_use]
    pub fn and(mut self, s: impl Into<String>) -> Self {
        self.0.push(Span::Text(s.into()));
        self
    }
    /// Appends code.
    #[must_use]
    pub fn code(mut self, s: impl Into<String>) -> Self {
        self.0.push(Span::Code(s.into()));
        self
    }
    /// Appends strong text.
    #[must_use]
    pub fn strong(mut self, s: impl Into<String>) -> Self {
        self.0.push(Span::Strong(s.into()));
        self
    }
    /// Appends emphasised text.
    #[must_use]
    pub fn em(mut self, s: impl Into<String>) -> Self {
        self.0.push(Span::Em(s.into()));
        self
    }
    /// The bare text, without emphasis (CSV).
    pub fn plain(&self) -> String {
        self.0
            .iter()
            .map(|s| match s {
                Span::Text(t) | Span::Code(t) | Span::Strong(t) | Span::Em(t) => t.as_str(),
            })
            .collect()
    }
    /// Markdown.
    pub fn to_markdown(&self) -> String {
        self.0
            .iter()
            .map(|s| match s {
                Span::Text(t) => t.clone(),
                Span::Code(t) => format!("`{t}`"),
                Span::Strong(t) => format!("**{t}**"),
                Span::Em(t) => format!("*{t}*"),
            })
            .collect()
    }
    /// HTML (escaped).
    pub fn to_html(&self) -> String {
        self.0
            .iter()
            .map(|s| match s {
                Span::Text(t) => esc(t),
                Span::Code(t) => format!("<code>{}</code>", esc(t)),
                Span::Strong(t) => format!("<strong>{}</strong>", esc(t)),
                Span::Em(t) => format!("<em>{}</em>", esc(t)),
            })
            .collect()
    }
}

impl From<String> for Inline {
    fn from(s: String) -> Self {
        Inline::text(s)
    }
}

impl From<&str> for Inline {
    fn from(s: &str) -> Self {
        Inline::text(s)
    }
}

/// A table: columns and rows of cells, one cell per column.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    /// The columns.
    pub columns: Vec<Column>,
    /// The rows.
    pub rows: Vec<Vec<Inline>>,
}

impl Table {
    /// A table with these columns (title, alignment) and no rows.
    pub fn new(columns: &[(&str, Align)]) -> Self {
        Table {
            columns: columns.iter().map(|&(t, align)| Column { title: t.into(), align }).collect(),
            rows: Vec::new(),
        }
    }

    /// Adds a row: one cell per column (a short row is padded with empty
    /// cells; cells beyond the columns are dropped).
    pub fn row<I: IntoIterator<Item = Inline>>(&mut self, cells: I) {
        let mut r: Vec<Inline> = cells.into_iter().take(self.columns.len()).collect();
        r.resize(self.columns.len(), Inline::default());
        self.rows.push(r);
    }

    /// A Markdown pipe table: header, alignment row, one line per row.
    /// `|` in a cell is written `\|` and a line break as a space, so a
    /// cell never splits the table.
    pub fn to_markdown(&self) -> String {
        let cell = |s: String| s.replace('|', "\\|").replace(['\n', '\r'], " ");
        let line = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
        let mut s = line(self.columns.iter().map(|c| cell(c.title.clone())).collect());
        s.push('|');
        for c in &self.columns {
            s.push_str(if c.align == Align::Right { "---:|" } else { "---|" });
        }
        s.push('\n');
        for r in &self.rows {
            s.push_str(&line(r.iter().map(|c| cell(c.to_markdown())).collect()));
        }
        s
    }

    /// CSV (RFC 4180 quoting): the titles, then one line per row.
    pub fn to_csv(&self) -> String {
        let line = |cells: Vec<String>| {
            let mut l = cells.iter().map(|c| csv_field(c)).collect::<Vec<_>>().join(",");
            l.push('\n');
            l
        };
        let mut s = line(self.columns.iter().map(|c| c.title.clone()).collect());
        for r in &self.rows {
            s.push_str(&line(r.iter().map(Inline::plain).collect()));
        }
        s
    }

    /// An HTML `<table>`: a header row of `<th>`, then rows of `<td>`.
    pub fn to_html(&self) -> String {
        let mut s = String::from("<table><tr>");
        for c in &self.columns {
            let _ = write!(s, "<th>{}</th>", esc(&c.title));
        }
        s.push_str("</tr>\n");
        for r in &self.rows {
            s.push_str("<tr>");
            for c in r {
                let _ = write!(s, "<td>{}</td>", c.to_html());
            }
            s.push_str("</tr>\n");
        }
        s.push_str("</table>\n");
        s
    }
}

/// A block of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// The title.
    H1(Inline),
    /// A section heading.
    H2(Inline),
    /// A paragraph.
    Para(Inline),
    /// A list, with an optional line introducing it (`Notes:`).
    List {
        /// The introducing line.
        lead: Option<Inline>,
        /// The items.
        items: Vec<Inline>,
    },
    /// A table.
    Table(Table),
}

/// A document: blocks in order. Markdown separates blocks by a blank
/// line; HTML writes one element (or a `<p>` and a `<ul>` for a list with
/// a lead) per block.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Doc(pub Vec<Block>);

impl Doc {
    /// Adds a block.
    pub fn push(&mut self, b: Block) {
        self.0.push(b);
    }

    /// Markdown.
    pub fn to_markdown(&self) -> String {
        let blocks: Vec<String> = self
            .0
            .iter()
            .map(|b| match b {
                Block::H1(t) => format!("# {}\n", t.to_markdown()),
                Block::H2(t) => format!("## {}\n", t.to_markdown()),
                Block::Para(t) => format!("{}\n", t.to_markdown()),
                Block::List { lead, items } => {
                    let mut s = lead.as_ref().map_or(String::new(), |l| format!("{}\n", l.to_markdown()));
                    for i in items {
                        let _ = writeln!(s, "- {}", i.to_markdown());
                    }
                    s
                }
                Block::Table(t) => t.to_markdown(),
            })
            .collect();
        blocks.join("\n")
    }

    /// HTML body (no page around it: see [`html_page`]).
    pub fn to_html(&self) -> String {
        let mut s = String::new();
        for b in &self.0 {
            match b {
                Block::H1(t) => _ = writeln!(s, "<h1>{}</h1>", t.to_html()),
                Block::H2(t) => _ = writeln!(s, "<h2>{}</h2>", t.to_html()),
                Block::Para(t) => _ = writeln!(s, "<p>{}</p>", t.to_html()),
                Block::List { lead, items } => {
                    if let Some(l) = lead {
                        let _ = writeln!(s, "<p>{}</p>", l.to_html());
                    }
                    s.push_str("<ul>");
                    for i in items {
                        let _ = write!(s, "<li>{}</li>", i.to_html());
                    }
                    s.push_str("</ul>\n");
                }
                Block::Table(t) => s.push_str(&t.to_html()),
            }
        }
        s
    }
}

/// One self-contained HTML page (no external resources): `title` in
/// `<title>`, the shared style plus `extra_css`, then `body`.
pub fn html_page(title: &str, extra_css: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\
<style>body{{font-family:sans-serif;margin:2em;max-width:1100px;color:#111}}table{{border-collapse:collapse;margin:1em 0}}\
td,th{{border:1px solid #ccc;padding:3px 8px;font-size:13px;text-align:right}}th{{background:#eee}}td:first-child{{text-align:left}}\
figure{{margin:1em 0}}{extra_css}</style></head><body>\n{body}\n</body></html>\n",
        esc(title)
    )
}

/// HTML-escapes text for an element or a double-quoted attribute.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// One CSV field: quoted when it holds a comma, a quote or a line break
/// (RFC 4180 section 2), its quotes doubled.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        let mut t = Table::new(&[("cell", Align::Left), ("Mbit/s", Align::Right), ("verdict", Align::Left)]);
        t.row(["a|b".into(), "1.5".into(), Inline::text("").strong("worse").and(" (x, \"y\")").em("<e>")]);
        t.row(["<c>\nd".into(), "2".into()]);
        t
    }

    #[test]
    fn one_table_three_encodings() {
        let t = sample();
        assert_eq!(t.rows[1].len(), 3, "a short row is padded");
        assert_eq!(
            t.to_markdown(),
            "| cell | Mbit/s | verdict |\n|---|---:|---|\n| a\\|b | 1.5 | **worse** (x, \"y\")*<e>* |\n| <c> d | 2 |  |\n"
        );
        assert_eq!(t.to_csv(), "cell,Mbit/s,verdict\na|b,1.5,\"worse (x, \"\"y\"\")<e>\"\n\"<c>\nd\",2,\n");
        assert_eq!(
            t.to_html(),
            "<table><tr><th>cell</th><th>Mbit/s</th><th>verdict</th></tr>\n\
<tr><td>a|b</td><td>1.5</td><td><strong>worse</strong> (x, &quot;y&quot;)<em>&lt;e&gt;</em></td></tr>\n\
<tr><td>&lt;c&gt;\nd</td><td>2</td><td></td></tr>\n</table>\n"
        );
        let mut long = Table::new(&[("x", Align::Left)]);
        long.row(["1".into(), "2".into()]);
        assert_eq!(long.to_csv(), "x\n1\n", "cells beyond the columns are dropped");
    }

    #[test]
    fn a_document_in_markdown_and_html() {
        let mut d = Doc::default();
        d.push(Block::H1("T <1>".into()));
        d.push(Block::Para(
            Inline::text("Plan: ").code("a<b").and(", ").em("helps").and(" & ").strong("<more>").and("."),
        ));
        d.push(Block::Table(sample()));
        d.push(Block::List { lead: Some("Notes:".into()), items: vec!["one".into(), "two".into()] });
        d.push(Block::List { lead: None, items: vec!["three".into()] });
        d.push(Block::H2("H".into()));
        let md = d.to_markdown();
        assert_eq!(
            md,
            "# T <1>\n\nPlan: `a<b`, *helps* & **<more>**.\n\n| cell | Mbit/s | verdict |\n|---|---:|---|\n\
| a\\|b | 1.5 | **worse** (x, \"y\")*<e>* |\n| <c> d | 2 |  |\n\nNotes:\n- one\n- two\n\n- three\n\n## H\n"
        );
        assert_eq!(
            d.to_html(),
            format!(
                "<h1>T &lt;1&gt;</h1>\n<p>Plan: <code>a&lt;b</code>, <em>helps</em> &amp; <strong>&lt;more&gt;</strong>.</p>\n{}\
<p>Notes:</p>\n<ul><li>one</li><li>two</li></ul>\n<ul><li>three</li></ul>\n<h2>H</h2>\n",
                sample().to_html()
            )
        );
        let page = html_page("a <b>", "x{}", "BODY");
        assert!(page.starts_with("<!DOCTYPE html>\n") && page.ends_with("<body>\nBODY\n</body></html>\n"), "{page}");
        assert!(page.contains("<title>a &lt;b&gt;</title>") && page.contains("figure{margin:1em 0}x{}</style>"));
        assert_eq!(esc("<a href=\"x\">&</a>"), "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;");
        assert_eq!(csv_field("a\rb"), "\"a\rb\"");
    }
}

"""The xml format: a `<memory-context>` block for prompts that take XML."""

from __future__ import annotations

from errnote.prompt.render.rule import lead, rule_of
from errnote.prompt.selection import Selection


def _xml_escape(text: str, quote: bool = False) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace('"', "&quot;") if quote else text


#: The xml format's sections: the rules (always-on and matched) and recent failures.
_XML_GROUPS = (("rules", ("always", "query", "path", "tool")), ("recent-failures", ("recent",)))


_XML_NOTE = "recorded in this repository's errnote notebook"


def render_xml(selection: Selection, *, dated: bool = False) -> str:
    """A `<memory-context>` block, rules and recent failures apart, for prompts that take XML."""
    out = [f'<memory-context source="errnote" note="{_xml_escape(_XML_NOTE, True)}">']
    for tag, sections in _XML_GROUPS:
        items = [p for s in sections for p in selection.section(s)]
        if not items:
            continue
        attrs = f' days="{selection.options.recent_days}"' if tag == "recent-failures" else ""
        out.append(f"<{tag}{attrs}>")
        for p in items:
            r = rule_of(p, selection.now, dated=dated)
            attrs = (
                f'id="{r.id}" type="{r.type}" selected="{",".join(p.reasons)}" '
                f'confidence="{r.confidence:.2f}" age="{_xml_escape(r.age, True)}"'
            )
            if r.pinned:
                attrs += ' pinned="true"'
            if r.unreviewed:
                attrs += ' unreviewed="true"'
            if r.notebook:
                attrs += f' notebook="{_xml_escape(r.notebook, True)}"'
            out.append(f"<entry {attrs}>")
            out.append(_xml_escape(lead(r)))
            if r.why:
                out.append(f"Reason: {_xml_escape(r.why)}")
            if r.instead:
                out.append(f"Fix: {_xml_escape(r.instead)}")
            if r.error:
                out.append(f"Error seen: {_xml_escape(r.error)}")
            out.append(f"Applies to: {_xml_escape(r.where)}")
            out.append("</entry>")
        out.append(f"</{tag}>")
    for eid, title in selection.related:
        out.append(f'<may-also-apply id="{eid}">{_xml_escape(title)}</may-also-apply>')
    out.append("</memory-context>")
    return "\n".join(out) + "\n"

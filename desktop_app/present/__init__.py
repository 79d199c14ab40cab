"""What the window shows and what an input means, in pure Python (no Qt; DESIGN.md §3).

``ui/`` renders the state these modules compute and forwards input to them; everything here reads a
session only through :class:`~desktop_app.session.SessionView` and is tested without a display.

- :mod:`.text`: what an entry is and says (pi's ``/tree`` one-liners, search text, previews);
- :mod:`.filters`: pi's ``/tree`` filter modes;
- :mod:`.viewgraph`: the view graph as frozen dataclasses; :mod:`.folding`: linear runs;
- :mod:`.graph_model`: building the view graph and keeping it current;
- :mod:`.navigation`, :mod:`.search`, :mod:`.selection`: keys, find, the selected node and its audit;
- :mod:`.graph_controller`: what a click, double-click, key or drag on the canvas means;
- :mod:`.chat_feed`: what the chat shows, from session and agent events.
"""

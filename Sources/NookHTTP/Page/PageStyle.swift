/// The page's style: one column on a phone, two on a desktop; focus always visible.
enum PageStyle {
    static let css = #"""
:root { color-scheme: light dark; --bg: #f6f6f4; --fg: #1b1b1b; --muted: #5a5a5a; --card: #fff;
  --line: #c8c8c4; --accent: #0b57d0; --focus: #b3261e; --danger: #a4161a; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #141414; --fg: #eee; --muted: #b0b0b0; --card: #202020; --line: #444;
    --accent: #8ab4f8; --focus: #ffb4ab; --danger: #ffb4ab; }
}
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.4 system-ui, sans-serif; background: var(--bg); color: var(--fg); }
header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0 1rem; padding: .5rem 1rem; border-bottom: 1px solid var(--line); }
h1 { font-size: 1.4rem; margin: 0; }
h2 { font-size: 1.1rem; margin: 0 0 .5rem; }
#state { margin: 0; color: var(--muted); }
main { display: grid; gap: 1rem; padding: 1rem; grid-template-columns: minmax(0, 1fr); }
@media (min-width: 60rem) {
  main { grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); }
  #glass-section { grid-column: 1 / -1; }
}
section { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: .75rem 1rem; }
figure { margin: 0; }
#glass { display: block; width: 100%; height: auto; background: #000; border-radius: 4px; }
figcaption { color: var(--muted); font-size: .9rem; }
fieldset { border: 1px solid var(--line); border-radius: 6px; margin: .5rem 0; padding: .5rem .75rem; }
label { display: block; margin: .25rem 0 .1rem; }
.row { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem; margin: .25rem 0; }
.row label { display: inline; margin: 0; }
input { font: inherit; padding: .4rem .5rem; border: 1px solid var(--line); border-radius: 4px; background: var(--bg); color: var(--fg); max-width: 100%; }
input[type=text], input[type=password], input[type=search] { width: 100%; }
.row input[type=search] { width: auto; flex: 1 1 10rem; }
button { font: inherit; min-height: 2.5rem; padding: .4rem .9rem; border: 1px solid var(--accent); border-radius: 4px;
  background: var(--accent); color: var(--bg); cursor: pointer; }
button.secondary { background: transparent; color: var(--accent); }
button:disabled { opacity: .5; cursor: progress; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
#test-send { margin-top: .5rem; }
.cards { list-style: none; margin: 0; padding: 0; }
.cards li { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: .5rem;
  padding: .4rem 0; border-top: 1px solid var(--line); }
.cards li:first-child { border-top: 0; }
.what { overflow-wrap: anywhere; }
.meta { display: block; color: var(--muted); font-size: .85rem; }
#apps li.stale .text { color: var(--muted); }
#apps li.showing { box-shadow: inset 4px 0 0 var(--accent); padding-left: .6rem; }
#error { margin: .5rem 1rem 0; padding: .5rem .75rem; border: 2px solid var(--danger); border-radius: 6px; color: var(--danger); }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: .5rem; background: var(--card); padding: .25rem .5rem; z-index: 1; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
[hidden] { display: none !important; }

"""#
}

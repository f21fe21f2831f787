/// The page's HTML: landmarks and real controls in the order a keyboard reaches them.
enum PageDocument {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Nook</title>
<link rel="icon" href="/page/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/page/page.css">
<script src="/page/page.js" defer></script>
</head>
<body>
<a class="skip" href="#controls">Skip to the controls</a>
<header>
<h1>Nook</h1>
<p id="state" aria-live="polite">Connecting…</p>
</header>
<div id="error" role="alert" hidden></div>
<p id="announce" class="visually-hidden" aria-live="polite"></p>
<main>
<section id="glass-section" aria-labelledby="glass-heading">
<h2 id="glass-heading">The glass</h2>
<figure>
<img id="glass" alt="The display, not loaded yet" width="1280" height="400" data-frame="0">
<figcaption id="frame">No frame yet</figcaption>
</figure>
</section>
<section id="controls" aria-labelledby="controls-heading" tabindex="-1">
<h2 id="controls-heading">Controls</h2>
<div class="row" role="group" aria-label="Queue">
<button type="button" id="suspend">Suspend</button>
<button type="button" id="resume">Resume</button>
</div>
<fieldset>
<legend>Quiet hours</legend>
<div class="row">
<button type="button" id="quiet-on">Quiet on</button>
<button type="button" id="quiet-off">Quiet off</button>
</div>
<form id="quiet-until-form" class="row">
<label for="quiet-until">Quiet until</label>
<input id="quiet-until" name="until" type="time" required>
<button type="submit" id="quiet-until-set">Set quiet until</button>
</form>
</fieldset>
<form id="test-form">
<fieldset>
<legend>Test card</legend>
<label for="test-title">Title</label>
<input id="test-title" name="title" type="text" value="Test card" maxlength="200" required>
<label for="test-body">Text</label>
<input id="test-body" name="body" type="text" value="Sent from the page" maxlength="500">
<button type="submit" id="test-send">Send test card</button>
</fieldset>
</form>
</section>
<section aria-labelledby="pending-heading">
<h2 id="pending-heading" tabindex="-1">Waiting</h2>
<p id="pending-count" aria-live="polite">Nothing waits.</p>
<ul id="pending" class="cards"></ul>
</section>
<section aria-labelledby="apps-heading">
<h2 id="apps-heading" tabindex="-1">Apps</h2>
<p id="apps-count" aria-live="polite">Apps not loaded yet.</p>
<div class="row" role="group" aria-label="Rotation">
<button type="button" id="app-previous">Previous app</button>
<button type="button" id="app-next">Next app</button>
</div>
<ul id="apps" class="cards"></ul>
</section>
<section aria-labelledby="history-heading">
<h2 id="history-heading">History</h2>
<form id="history-form" role="search" class="row">
<label for="history-q">Search history</label>
<input id="history-q" name="q" type="search" autocomplete="off">
<button type="submit" id="history-search">Search</button>
</form>
<p id="history-count" aria-live="polite"></p>
<ol id="history" class="cards"></ol>
<button type="button" id="history-more" hidden>Show older</button>
</section>
<section aria-labelledby="token-heading">
<h2 id="token-heading">Token</h2>
<form id="token-form">
<p id="token-hint">Not needed from this machine unless nook-http has tokens. Kept for this tab only.</p>
<label for="token">Bearer token</label>
<input id="token" name="token" type="password" autocomplete="off" spellcheck="false">
<div class="row">
<button type="submit" id="token-save">Use token</button>
<button type="button" id="token-forget">Forget token</button>
</div>
</form>
</section>
</main>
</body>
</html>

"""#
}

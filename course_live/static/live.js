// The live lab's page: places each snapshot of the feed (server-sent events) as text. No markup from data:
// every name and sentence goes through textContent, so a learner's name is never HTML (issue 46).
"use strict";
(() => {
  const body = document.body;
  const byId = (id) => document.getElementById(id);
  const element = (tag, text, className) => {
    const made = document.createElement(tag);
    if (text !== undefined) made.textContent = text;
    if (className) made.className = className;
    return made;
  };
  const withCode = (target, text) => {
    // a rule's text marks code with backticks: those parts become <code>, as text
    target.replaceChildren(...text.split("`").map((part, i) => (i % 2 ? element("code", part) : document.createTextNode(part))));
  };

  const renderChecks = (checks) => {
    byId("checks").tBodies[0].replaceChildren(...checks.map((check) => {
      const row = element("tr");
      row.append(element("td", check.label), element("td", String(check.pass)), element("td", String(check.fail)),
        element("td", String(check.not_started)));
      const bar = element("div", undefined, "bar");
      const total = check.pass + check.fail + check.not_started || 1;
      for (const [part, count] of [["pass", check.pass], ["fail", check.fail], ["waiting", check.not_started]]) {
        const piece = element("span", undefined, part);
        piece.style.width = `${(100 * count) / total}%`;
        bar.append(piece);
      }
      const cell = element("td");
      cell.title = check.words;
      cell.append(bar);
      row.append(cell);
      return row;
    }));
  };

  const renderRule = (rule) => {
    byId("rule").hidden = !rule;
    byId("no-rule").hidden = !!rule;
    if (!rule) return;
    byId("rule-id").textContent = rule.rule;
    byId("rule-sentence").textContent = rule.sentence;
    withCode(byId("rule-statement"), rule.statement);
    byId("rule-message").textContent = rule.message;
  };

  const renderGrid = (columns, grid) => {
    const table = byId("grid");
    if (!table) return;
    const head = byId("grid-head");
    head.replaceChildren(head.firstElementChild, ...columns.map((column) => element("th", column)));
    table.tBodies[0].replaceChildren(...grid.map((learner) => {
      const row = element("tr", undefined, learner.stuck ? "stuck" : "");
      row.append(element("th", learner.name));
      for (const cell of learner.cells) {
        const shown = element("td", cell.mark, cell.status.replace(" ", "-"));
        shown.title = cell.word;
        row.append(shown);
      }
      return row;
    }));
  };

  const render = (room) => {
    byId("title").textContent = room.title;
    byId("summary").textContent = room.summary;
    byId("where").replaceChildren(...room.where.map((lab) => element("li", `${lab.label}: ${lab.learners}`, lab.current ? "current" : "")));
    renderChecks(room.checks);
    renderRule(room.top_rule);
    byId("stuck-summary").textContent = room.stuck_summary;
    byId("stuck").replaceChildren(...room.stuck.map((learner) => element("li", learner.name ? `${learner.name}: ${learner.why}` : learner.why)));
    renderGrid(room.columns, room.grid);
    byId("status").textContent = "";
    body.dataset.latestRun = String(room.latest_run);
  };

  const picture = () => {
    byId("picture").src = `${body.dataset.picture}&t=${Date.now()}`;
  };
  const feed = new EventSource(body.dataset.feed);
  feed.onmessage = (event) => render(JSON.parse(event.data));
  feed.onerror = () => {
    byId("status").textContent = body.dataset.offline;
  };
  picture();
  setInterval(picture, 30000);
})();

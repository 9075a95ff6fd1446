// Drives the explorer page in headless Chromium (playwright-core, with the system's
// Chromium): loads the page, waits for the method list that rpc.discover fills, picks a
// method, types its params into the form by their labels, submits with the keyboard,
// waits for the answer, and saves a screenshot.
//
// args: a JSON spec {"url", "chromium", "method", "fill": [{"label", "value"}],
//       "screenshot"}, or {"url", "chromium", "subscription", "notifications",
//       "screenshot"} to subscribe instead and wait for that many notifications.
// stdout: {"methods": [...], "labels": [...], "state": "done"|"failed"|"streaming",
//          "answer": "...", "problems": [...]} (problems: errors the page logged)
//          and for a call "trace" (what the page shows of its trace) and "traceparents"
//          (the header of each POST it sent)
import { chromium } from "playwright-core";

const spec = JSON.parse(process.argv[process.argv.length - 1]);
const browser = await chromium.launch({
  executablePath: spec.chromium,
  headless: true,
  // Root in CI needs --no-sandbox; the rest keeps Chromium off the network.
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  page.setDefaultTimeout(20_000);
  const problems = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  await page.goto(spec.url);

  const methods = page.getByRole("navigation").getByRole("button");
  await methods.first().waitFor();
  const names = await methods.allTextContents();
  if (spec.subscription) {
    await page.getByRole("button", { name: `${spec.subscription} (subscription)`, exact: true }).click();
    await page.getByRole("heading", { name: spec.subscription, exact: true }).waitFor();
    await page.getByRole("button", { name: "Subscribe", exact: true }).click();
    await page.waitForFunction(
      (n) => Number(document.getElementById("answer").dataset.count || 0) >= n,
      spec.notifications,
    );
    const answer = page.locator("#answer");
    const result = {
      methods: names,
      labels: await page.locator("#fields label").allTextContents(),
      state: await answer.getAttribute("data-state"),
      answer: await answer.textContent(),
      problems,
    };
    await page.screenshot({ path: spec.screenshot, fullPage: true });
    console.log(JSON.stringify(result));
    process.exit(0);
  }
  // The traceparent of each JSON-RPC call the page sends, as it goes on the wire.
  const traceparents = [];
  page.on("request", (r) => {
    if (r.method() === "POST") traceparents.push(r.headers()["traceparent"] || null);
  });
  await page.getByRole("button", { name: spec.method, exact: true }).click();
  await page.getByRole("heading", { name: spec.method, exact: true }).waitFor();
  const labels = await page.locator("#fields label").allTextContents();
  for (const { label, value } of spec.fill) {
    await page.getByLabel(label, { exact: true }).fill(value);
  }
  // Submit from the keyboard: Enter in the last field.
  await page.getByLabel(spec.fill[spec.fill.length - 1].label, { exact: true }).press("Enter");
  const answer = page.locator('#answer:is([data-state="done"], [data-state="failed"])');
  await answer.waitFor();
  const result = {
    methods: names,
    labels,
    state: await answer.getAttribute("data-state"),
    answer: await answer.textContent(),
    trace: await page.locator("#trace").textContent(),
    traceparents,
    problems,
  };
  await page.screenshot({ path: spec.screenshot, fullPage: true });
  console.log(JSON.stringify(result));
} finally {
  await browser.close();
}

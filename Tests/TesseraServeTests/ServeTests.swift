// The live list's tests: protocol, edits, safety and the browser.

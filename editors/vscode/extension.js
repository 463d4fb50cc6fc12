// A minimal VS Code client for KML: it starts `kml lsp` (the command named
// by the kml.path setting) for .kml files and lets vscode-languageclient
// carry diagnostics, hover, completion, definitions and formatting.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("kml").get("path") || "kml";
  const server = { command, args: ["lsp"] };
  client = new LanguageClient(
    "kml",
    "KML language server",
    { run: server, debug: server },
    { documentSelector: [{ scheme: "file", language: "kml" }, { scheme: "untitled", language: "kml" }] }
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };

// A controller's API speaks TesseraDiff (snapshots, changesets), so
// `import TesseraResultsCore` brings it in.
@_exported public import TesseraDiff

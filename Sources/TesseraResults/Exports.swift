// A controller's API speaks TesseraSQLite (connections, rows, values) and
// TesseraDiff (snapshots, changesets), so `import TesseraResults` brings
// both in.
@_exported public import TesseraDiff
@_exported public import TesseraSQLite

// TesseraResults is the results controllers over SQLite: the
// store-independent controllers and engine (TesseraResultsCore), the
// SQLite store (TesseraResultsSQLite) and the connection they read
// (TesseraSQLite), with TesseraDiff's snapshots and changesets.
// `import TesseraResults` brings all of them in.
@_exported public import TesseraDiff
@_exported public import TesseraSQLite
@_exported public import TesseraResultsCore
@_exported public import TesseraResultsSQLite

// The controllers over PostgreSQL are the store-independent ones of
// TesseraResultsCore (with TesseraDiff's snapshots and changesets), so
// `import TesseraPostgres` brings them in. SQLite is not linked.
@_exported import TesseraResultsCore

// The values a connection reads and binds, and the error it throws, live
// in TesseraResultsCore, where every store shares them; `import
// TesseraSQLite` brings these two in, as before they moved.
@_exported public import enum TesseraResultsCore.DatabaseValue
@_exported public import struct TesseraResultsCore.SQLiteError

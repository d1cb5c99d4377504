// `import Tessera` brings in every Tessera module.
@_exported import TesseraDiff
@_exported import TesseraLayout
@_exported import TesseraView
@_exported import TesseraSQLite
@_exported import TesseraResults

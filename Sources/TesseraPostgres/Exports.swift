@_exported import TesseraResults

// The engine speaks the model's types: code that imports TabulaCore sees TabulaModel too.
@_exported import TabulaModel

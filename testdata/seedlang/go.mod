module example.com/seedlang

go 1.21

module example.com/callbackcallers

go 1.25

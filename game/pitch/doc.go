// Package pitch is the soccer pitch as data and as physics: its size, boards
// and goals (Pitch, Default), the ball and the player capsule of a regulation
// match (DefaultBall, DefaultPlayer), and Pitch.AddTo, which builds them into
// a physics.World. It holds no rules: the soccer game, the ball drill and
// tests share it.
package pitch

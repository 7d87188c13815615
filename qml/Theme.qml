// Colours and sizes shared by the pages: Breeze's accent colours for series
// (one per member, the same in every chart, bar and list), spacing.
pragma Singleton
import QtQuick

QtObject {
    readonly property var seriesColors: ["#3daee9", "#f67400", "#1cdc9a", "#da4453", "#9b59b6", "#fdbc4b"]
    readonly property color positive: "#27ae60"
    readonly property color negative: "#da4453"
    readonly property color neutral: "#f67400"
    readonly property color markColor: "#f67400"
    // A parity array's P and Q chunks (the stripe layout): greys, so they
    // are never read as one of the members' colours.
    readonly property color parityP: "#7f8c8d"
    readonly property color parityQ: "#52606d"
    readonly property int spacing: 10
    readonly property int radius: 5
    // One row per member, alike wherever members are listed (the
    // dashboard's Members card, the Tune page's per-member editors): at
    // least this tall (a control's height), this far apart.
    readonly property int memberRowHeight: 28
    readonly property int memberRowSpacing: 4

    // Human figures: "412 MB/s", "12.3 k", "4.20 ms" ("–" when unknown).
    function bandwidth(bytesPerSecond) {
        const v = bytesPerSecond
        if (!(v >= 0) || !isFinite(v)) return "–"
        if (v === 0) return "0 MB/s"  // the charts' unit: an idle direction reads as the busy one does
        if (v >= 1e9) return (v / 1e9).toFixed(2) + " GB/s"
        if (v >= 1e6) return (v / 1e6).toFixed(v >= 1e8 ? 0 : 1) + " MB/s"
        if (v >= 1e3) return (v / 1e3).toFixed(0) + " kB/s"
        return v.toFixed(0) + " B/s"
    }
    function count(v) {
        if (!(v >= 0) || !isFinite(v)) return "–"
        if (v >= 1e6) return (v / 1e6).toFixed(2) + " M"
        if (v >= 1e4) return (v / 1e3).toFixed(1) + " k"
        return v.toFixed(0)
    }
    function ms(v) {
        if (!(v > 0) || !isFinite(v)) return "–"
        if (v < 1) return (v * 1000).toFixed(0) + " µs"
        if (v < 10) return v.toFixed(2) + " ms"
        if (v < 1000) return v.toFixed(1) + " ms"
        return (v / 1000).toFixed(2) + " s"
    }
    // Sizes as the Arrays page lists them: "64 MiB" (whole mebibytes).
    function mebibytes(bytes) {
        if (!(bytes >= 0) || !isFinite(bytes)) return "–"
        return (bytes / 1048576).toFixed(0) + " MiB"
    }
    // A size typed as the CLI takes it ("64M", "1G", "512K", "1048576"; K,
    // M, G, T are powers of 1024, as fio's): bytes, or NaN when it is not one.
    function parseSize(text) {
        const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$/i.exec(text || "")
        if (!m) return NaN
        const power = "kmgt".indexOf(m[2].toLowerCase()) + 1
        return Number(m[1]) * Math.pow(1024, m[2] ? power : 0)
    }
    // Sizes in binary units: "512 KiB", "64 MiB", "1.5 GiB".
    function size(bytes) {
        if (!(bytes >= 0) || !isFinite(bytes)) return "–"
        const units = ["B", "KiB", "MiB", "GiB", "TiB"]
        let v = bytes, u = 0
        while (v >= 1024 && u < units.length - 1) { v /= 1024; ++u }
        return (v >= 100 || u === 0 || v === Math.round(v) ? v.toFixed(0) : v.toFixed(1)) + " " + units[u]
    }
    // "45 s", "3 min 20 s", "1 h 05 min" ("–" when unknown).
    function duration(seconds) {
        if (!(seconds >= 0) || !isFinite(seconds)) return "–"
        const s = Math.round(seconds)
        if (s < 60) return s + " s"
        if (s < 3600) return Math.floor(s / 60) + " min " + (s % 60) + " s"
        return Math.floor(s / 3600) + " h " + String(Math.floor(s % 3600 / 60)).padStart(2, "0") + " min"
    }
    // A running task as the dashboard and the Arrays page say it:
    // "m2.img · 42 % · 120 MB/s · 35 s left".
    function taskText(task) {
        if (!task || !task.kind) return ""
        let t = (task.target ? task.target + " · " : "") + Math.round(100 * task.fraction) + " %"
        if (task.speed > 0) t += " · " + bandwidth(task.speed) + " · " + qsTr("%1 left").arg(duration(task.secondsLeft))
        return t
    }
    // The colour a field's (text field, check box, spin box) window role
    // takes so that Fusion's border, which it draws a little darker than the
    // window (QQuickFusionStyle::outline, 140 %), stands out from the field's
    // fill: in a dark scheme the window and the fill are nearly one colour,
    // and the border vanished. The border aimed at is the fill tinted 35 %
    // toward the text colour (3:1 against the fill, WCAG's contrast for a
    // control's edge); a light scheme keeps Fusion's own border.
    function fieldWindow(palette) {
        if (palette.window.hslLightness >= 0.5) return palette.window
        const border = Qt.tint(palette.base, Qt.rgba(palette.text.r, palette.text.g, palette.text.b, 0.35))
        return Qt.lighter(border, 1.4)
    }
    function memberColor(i) { return seriesColors[i % seriesColors.length] }
    // "active sync" -> a colour for the member-state badge.
    function stateColor(state) {
        if (state === "active sync") return positive
        if (state === "recovering" || state === "resyncing") return neutral
        return negative
    }
}

// Two results side by side as horizontal bars (KDiskMark's look): each
// row a figure, the longer bar the larger value; `higherIsBetter` colours
// the better one.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

ColumnLayout {
    id: rb
    property string label
    property real before: 0
    property real after: 0
    property string beforeText
    property string afterText
    property string beforeName: qsTr("before")
    property string afterName: qsTr("after")
    readonly property real maxValue: Math.max(before, after, 1e-12)
    // Fraction of the full width for a value (tested): 0..1.
    function fraction(v) { return Math.max(0, Math.min(1, v / maxValue)) }
    spacing: 3
    SystemPalette { id: pal }
    TextMetrics { id: textWidth; text: rb.beforeText.length > rb.afterText.length ? rb.beforeText : rb.afterText }
    Label { text: rb.label; font.bold: true }
    Repeater {
        model: 2
        RowLayout {
            readonly property var modelData: index === 0
                ? {name: rb.beforeName, v: rb.before, t: rb.beforeText, c: Theme.seriesColors[0]}
                : {name: rb.afterName, v: rb.after, t: rb.afterText, c: Theme.seriesColors[1]}
            Layout.fillWidth: true
            spacing: 8
            Label { text: modelData.name; Layout.preferredWidth: 200; elide: Text.ElideRight; opacity: 0.85 }
            Item {
                Layout.fillWidth: true
                implicitHeight: 20
                Rectangle { anchors.fill: parent; radius: 3; color: Qt.rgba(pal.windowText.r, pal.windowText.g, pal.windowText.b, 0.07) }
                Rectangle {
                    width: parent.width * rb.fraction(modelData.v)
                    height: parent.height
                    radius: 3
                    color: modelData.c
                }
            }
            // As wide as the longer of the two figures (a spread after the
            // figure ran into the bar at a fixed 110 px).
            Label { text: modelData.t; Layout.preferredWidth: Math.max(110, textWidth.width + 4); horizontalAlignment: Text.AlignRight }
        }
    }
}

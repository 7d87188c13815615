// One live figure with its label (KDiskMark/System Monitor style tile).
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Card {
    id: tile
    property string label
    property string value
    property string detail
    // The window the figure covers ("last 50 ms", "now"), shown under it.
    property string window
    property color accent: Theme.seriesColors[0]
    // The figure is the last one seen, not live (the workload stopped):
    // greyed, and its window says so.
    property bool stale: false
    implicitHeight: 90
    implicitWidth: 170
    ToolTip.visible: hover.hovered && detail.length > 0
    ToolTip.text: detail
    ToolTip.delay: 500
    HoverHandler { id: hover }
    Rectangle { width: 3; radius: 1.5; color: tile.accent; anchors { left: parent.left; top: parent.top; bottom: parent.bottom } }
    Column {
        anchors { left: parent.left; leftMargin: 12; right: parent.right; verticalCenter: parent.verticalCenter }
        spacing: 2
        Label {
            objectName: "statLabel"
            text: tile.label
            opacity: 0.75
            // Smaller before elided, as the figure.
            fontSizeMode: Text.HorizontalFit
            minimumPointSize: 7
            elide: Text.ElideRight
            width: parent.width
        }
        Label {
            objectName: "statValue"
            text: tile.value
            opacity: tile.stale ? 0.4 : 1
            font.pixelSize: 22
            font.weight: Font.DemiBold
            // Smaller rather than cut: an elided figure says nothing.
            fontSizeMode: Text.HorizontalFit
            minimumPixelSize: 12
            width: parent.width
        }
        Label {
            objectName: "statWindow"
            text: tile.stale ? qsTr("stopped") : tile.window
            visible: text.length > 0
            opacity: 0.6
            font.pointSize: Math.max(7, Qt.application.font.pointSize - 1)
            elide: Text.ElideRight
            width: parent.width
        }
    }
}

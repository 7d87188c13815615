// The members' read shares now, as one stacked bar (each member's colour,
// its percentage written in its part when it fits). `shares` are
// percentages; parts are laid out proportionally to their sum.
import QtQuick
import QtQuick.Controls

Item {
    id: bar
    property var shares: []        // [40.0, 60.0]
    property var names: []         // labels for the tooltip
    implicitHeight: 26
    implicitWidth: 300
    readonly property real total: {
        let t = 0
        for (let i = 0; i < shares.length; ++i) t += Math.max(0, shares[i])
        return t
    }
    // Width of part i in pixels (0 when nothing was read).
    function partWidth(i) {
        return total > 0 ? width * Math.max(0, shares[i]) / total : 0
    }
    function partX(i) {
        let x = 0
        for (let k = 0; k < i; ++k) x += partWidth(k)
        return x
    }
    SystemPalette { id: pal }
    Rectangle {
        anchors.fill: parent
        radius: 4
        color: Qt.rgba(pal.windowText.r, pal.windowText.g, pal.windowText.b, 0.08)
    }
    Repeater {
        model: bar.shares.length
        Rectangle {
            objectName: "sharePart" + index
            x: bar.partX(index)
            width: bar.partWidth(index)
            height: bar.height
            color: Theme.memberColor(index)
            radius: 4
            Label {
                anchors.centerIn: parent
                visible: parent.width > implicitWidth + 8
                text: Math.round(bar.shares[index]) + " %"
                color: "white"
                font.bold: true
            }
            ToolTip.visible: hh.hovered
            ToolTip.text: (bar.names[index] || ("member " + index)) + ": " + bar.shares[index].toFixed(1) + " % of reads"
            HoverHandler { id: hh }
        }
    }
    Label {
        anchors.centerIn: parent
        visible: bar.total <= 0
        text: qsTr("no reads")
        opacity: 0.6
    }
}
